// Waiting for a condition instead of for a fixed time: a fixed sleep is too short on a busy machine
// and needlessly long on an idle one. The timeout only bounds a wait that would otherwise hang, so
// it is generous; the condition decides.

/** Polls `check` every `intervalMs` until it holds; fails after `timeoutMs` naming `what`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
