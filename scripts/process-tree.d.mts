export function eachTask(pid: number | string, read: (process: string, task: string) => void): void;
