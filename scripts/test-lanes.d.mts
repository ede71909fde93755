export function planLanes(
  files: string[],
  cpu: (file: string) => number | undefined,
  runnable: (file: string) => number | undefined,
  apart?: boolean,
): { queue: string[]; waiting: string[] };
