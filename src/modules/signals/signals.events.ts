// The account-stream event the signals module publishes: an alert with the hook's right secret that
// made no order (stale, unreadable, or refused by the order path). Alerts without the secret publish
// nothing: whoever does not hold it cannot fill the owner's stream or inbox.
import { Type } from 'typebox';
import { defineStreamEvent } from '../../platform/stream-events.ts';

const signalRefused = defineStreamEvent({
  type: 'signal.refused',
  audience: 'user',
  title: 'SignalRefusedData',
  description:
    'An alert posted to one of your signal hooks with its secret made no order: it was stale, unreadable, or ' +
    'the order path refused it (limits, halt, live safety, trading unavailable).',
  data: Type.Object({
    hook_id: Type.String({ format: 'uuid', description: 'The hook the alert was posted to.' }),
    hook_name: Type.String({ description: "The hook's name." }),
    status: Type.Integer({ description: 'The HTTP status the alert was answered with.' }),
    reason: Type.String({ description: 'Why, as the alert was answered.' }),
  }),
});

export const SIGNALS_EVENTS = [signalRefused] as const;
