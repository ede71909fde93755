// Numbers and times in the reader's locale (Intl), whatever the API's format.
const cache = new Map<string, Intl.NumberFormat>();
function numberFormat(options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = JSON.stringify(options);
  let format = cache.get(key);
  if (!format) cache.set(key, (format = new Intl.NumberFormat(undefined, options)));
  return format;
}

export function num(value: number | null | undefined, digits?: number): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  if (digits !== undefined)
    return numberFormat({ minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
  const abs = Math.abs(value);
  const max = abs >= 1000 ? 2 : abs >= 1 ? 4 : 8;
  return numberFormat({ maximumFractionDigits: max }).format(value);
}

export function price(value: number | null | undefined): string {
  return num(value);
}

export function compact(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return numberFormat({ notation: 'compact', maximumFractionDigits: 2 }).format(value);
}

export function percent(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return (
    `${value > 0 ? '+' : ''}${numberFormat({ minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value)} ` +
    '%'
  );
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
export function time(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '—' : dateTime.format(date);
}

export const trend = (value: number | null | undefined) =>
  value === null || value === undefined || value === 0 ? '' : value > 0 ? 'up' : 'down';
