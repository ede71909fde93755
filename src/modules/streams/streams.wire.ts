// The streams module's answers on the wire outside the stream itself (whose frames are the events'
// schemas): the ticket service returns an issued ticket, and the route answers it through this
// mapper, typed by the response schema.
import type { Static } from 'typebox';
import { iso } from '../../platform/http/schemas.ts';
import type { TicketResponse } from './events.schemas.ts';
import type { IssuedTicket } from './tickets.service.ts';

export function ticketWire(issued: IssuedTicket): Static<typeof TicketResponse> {
  return { ticket: issued.ticket, expires_in: issued.validForSeconds, expires_at: iso(issued.expiresAt)! };
}
