// Which of a user's deposits and withdrawals are one move between two of their own venues (docs/decisions/151).
import type { Dec } from './ledger.domain.ts';

/** One synced deposit or withdrawal, as the matcher sees it. */
export interface TransferRecord {
  id: string;
  type: 'deposit' | 'withdrawal';
  exchange: string;
  asset: string;
  amount: Dec;
  fee: Dec;
  at: Date;
  txid: string | null;
}

/** A deposit counts as the arrival of a withdrawal from another venue of the user's within this long after it. */
export const TRANSFER_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Pairs withdrawals with deposits of the same asset on another of the user's venues: the same
 * txid, or else the amount sent arriving within TRANSFER_WINDOW_MS after. Each record pairs at most once, the
 * earliest candidate first. Answers the pairs and the records left as outside flows.
 */
export function matchTransfers(records: readonly TransferRecord[]): {
  transfers: { withdrawal: TransferRecord; deposit: TransferRecord }[];
  deposits: TransferRecord[];
  withdrawals: TransferRecord[];
} {
  const sorted = [...records].sort((a, b) => a.at.getTime() - b.at.getTime() || a.id.localeCompare(b.id));
  const withdrawals = sorted.filter((r) => r.type === 'withdrawal');
  const deposits = sorted.filter((r) => r.type === 'deposit');
  const used = new Set<string>();
  const transfers: { withdrawal: TransferRecord; deposit: TransferRecord }[] = [];
  for (const w of withdrawals) {
    const candidates = deposits.filter((d) => !used.has(d.id) && d.asset === w.asset && d.exchange !== w.exchange);
    const byTx = w.txid ? candidates.find((d) => d.txid === w.txid) : undefined;
    const byAmount = candidates.find((d) => {
      const lag = d.at.getTime() - w.at.getTime();
      return lag >= 0 && lag <= TRANSFER_WINDOW_MS && d.amount.eq(w.amount);
    });
    const d = byTx ?? byAmount;
    if (!d) continue;
    used.add(d.id).add(w.id);
    transfers.push({ withdrawal: w, deposit: d });
  }
  return {
    transfers,
    deposits: deposits.filter((d) => !used.has(d.id)),
    withdrawals: withdrawals.filter((w) => !used.has(w.id)),
  };
}
