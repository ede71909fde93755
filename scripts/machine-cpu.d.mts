export function descendantsCpu(pid: number): Map<string, number>;
export function descendantsWatch(
  pid: number,
  options?: { read?: (pid: number) => Map<string, number> },
): { tick(): void; seconds(): number };
export function unwaitedSeconds(seen: number, waited: number): number;
export function idleCores(): { stop(): { idle: number; busy: number; percent: number; tenths: number[] } } | undefined;
