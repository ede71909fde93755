// The account-stream event the orders module publishes: every change of an order (placed, each status
// move, each fill), with the order as GET /api/orders/{order_id} shows it, without its fills.
import { defineStreamEvent } from '../../platform/stream-events.ts';
import { Order } from './orders.schemas.ts';

const orderUpdated = defineStreamEvent({
  type: 'order.updated',
  audience: 'user',
  title: 'OrderUpdatedData',
  description: 'One of your orders changed: placed, a status move, a fill. Carries the order as it stands.',
  data: Order,
});

export const ORDERS_EVENTS = [orderUpdated] as const;
