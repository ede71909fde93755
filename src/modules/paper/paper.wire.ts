// The paper account on the wire, typed by its response schema.
import type { PaperAccount } from './account.schemas.ts';
import type { AccountView } from './account.service.ts';
import { decimalText } from './paper.domain.ts';

export function accountWire(view: AccountView): PaperAccount {
  return {
    quote: view.quote,
    balances: view.balances.map((b) => ({ asset: b.asset, free: decimalText(b.free), locked: decimalText(b.locked) })),
    equity: view.equity === null ? null : decimalText(view.equity),
    unpriced: view.unpriced,
    source: view.source,
  };
}
