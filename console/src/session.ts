// The signed-in session: the access token lives in this module's memory only; the refresh token is
// an HttpOnly cookie the server sets on /api/console/session, out of every script's reach (decision 160).
interface Me {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  role: 'user' | 'admin';
  status: string;
  twoFactorEnabled: boolean;
  /** Whether an authenticator app is one of the second factors (a passkey may be another). */
  totpEnabled: boolean;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(
      typeof detail === 'string'
        ? detail
        : Array.isArray(detail)
          ? detail
              .map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).slice(1).join('.')}: ${d.msg}`)
              .join('; ')
          : `HTTP ${status}`,
    );
  }
}

type Listener = () => void;
let access: string | null = null;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let current: Me | null = null;
let ready = false;
let notice: string | null = null;
/** Counts changes, so a view can tell whether one happened between its render and its subscription. */
let version = 0;
const listeners = new Set<Listener>();

export const session = {
  get user() {
    return current;
  },
  get ready() {
    return ready;
  },
  /** Why the console signed out on its own (e.g. the account was suspended), for the sign-in page. */
  get notice() {
    return notice;
  },
  get version() {
    return version;
  },
  subscribe(listener: Listener) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
const changed = () => {
  version += 1;
  for (const listener of listeners) listener();
};

async function sessionCall(path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { 'x-console-request': '1' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (access) headers.authorization = `Bearer ${access}`;
  return fetch(`/api/console/session/${path}`, {
    method: 'POST',
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
}

async function failure(response: Response): Promise<ApiError> {
  let detail: unknown = `HTTP ${response.status}`;
  try {
    detail = ((await response.json()) as { detail: unknown }).detail;
  } catch {
    // Not our JSON (a proxy's page): the status says enough.
  }
  return new ApiError(response.status, detail);
}

function accept(answer: { access_token: string; expires_in: number }) {
  access = answer.access_token;
  clearTimeout(refreshTimer);
  // Renew a minute before expiry; a tab put to sleep renews on its next 401 instead.
  refreshTimer = setTimeout(() => void refresh(), Math.max(10, answer.expires_in - 60) * 1000);
}

let refreshing: Promise<boolean> | null = null;
/**
 * Rotates the cookie for a new access token, once at a time: two tabs refreshing together would
 * present the same refresh token twice, which the server treats as theft and revokes the session.
 */
function refresh(): Promise<boolean> {
  refreshing ??= (async () => {
    const run = async () => {
      const response = await sessionCall('refresh');
      if (!response.ok) return false;
      accept((await response.json()) as { access_token: string; expires_in: number });
      return true;
    };
    try {
      return navigator.locks ? await navigator.locks.request('console-session-refresh', run) : await run();
    } catch {
      return false;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

async function loadMe(): Promise<void> {
  current = await api<Me>('/api/auth/me');
  notice = null;
  changed();
}

/** At start: a cookie from an earlier visit signs the console in again. */
export async function resume(): Promise<void> {
  try {
    if (await refresh()) await loadMe();
  } catch {
    current = null;
  }
  ready = true;
  changed();
}

/** The second factors a sign-in can be finished with. */
export type MfaMethod = 'totp' | 'recovery_code' | 'webauthn';
type SignInStep = { done: true } | { done: false; mfaToken: string; methods: MfaMethod[] };

export async function signIn(email: string, password: string): Promise<SignInStep> {
  const response = await sessionCall('login', { email, password });
  if (!response.ok) throw await failure(response);
  const answer = (await response.json()) as {
    access_token?: string;
    expires_in?: number;
    mfa_required?: boolean;
    mfa_token?: string;
    methods?: MfaMethod[];
  };
  if (answer.mfa_required && answer.mfa_token)
    return { done: false, mfaToken: answer.mfa_token, methods: answer.methods ?? ['totp', 'recovery_code'] };
  accept(answer as { access_token: string; expires_in: number });
  await loadMe();
  return { done: true };
}

export async function verifySecondFactor(mfaToken: string, code: string, recovery: boolean): Promise<void> {
  const response = await sessionCall(
    '2fa',
    recovery ? { mfa_token: mfaToken, recovery_code: code } : { mfa_token: mfaToken, code },
  );
  if (!response.ok) throw await failure(response);
  accept((await response.json()) as { access_token: string; expires_in: number });
  await loadMe();
}

export async function stepUp(code: string): Promise<void> {
  const response = await sessionCall('step-up', { code });
  if (!response.ok) throw await failure(response);
  accept((await response.json()) as { access_token: string; expires_in: number });
}

// ---- Passkeys (decision 204): the server's options go to the browser, its credential back. ----------

interface Ceremony {
  challenge_token: string;
  options: PublicKeyCredentialRequestOptionsJSON & PublicKeyCredentialCreationOptionsJSON;
}

const ceremony = (body: Record<string, string>) =>
  api<Ceremony>('/api/auth/passkeys/options', { method: 'POST', body });

/** The passkey the browser lets the user choose for the options, as JSON. */
async function assertion(options: PublicKeyCredentialRequestOptionsJSON): Promise<PublicKeyCredentialJSON> {
  const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(options);
  const credential = (await navigator.credentials.get({ publicKey })) as PublicKeyCredential | null;
  if (!credential) throw new ApiError(0, 'No passkey was used');
  return credential.toJSON();
}

/** Spends the ceremony at the console's route: a sign-in or step-up sets the cookie and the access token. */
async function finish(started: Ceremony, credential: PublicKeyCredentialJSON): Promise<void> {
  const response = await sessionCall('passkey', { challenge_token: started.challenge_token, response: credential });
  if (!response.ok) throw await failure(response);
  accept((await response.json()) as { access_token: string; expires_in: number });
}

/** Signs in with a passkey: the account's, when an e-mail is given, or any of this site's. */
export async function signInWithPasskey(email: string): Promise<void> {
  const started = await ceremony(email ? { purpose: 'login', email } : { purpose: 'login' });
  await finish(started, await assertion(started.options));
  await loadMe();
}

/** Finishes a password sign-in with a passkey as its second factor. */
export async function verifyWithPasskey(mfaToken: string): Promise<void> {
  const started = await ceremony({ purpose: 'mfa', mfa_token: mfaToken });
  await finish(started, await assertion(started.options));
  await loadMe();
}

export async function stepUpWithPasskey(): Promise<void> {
  const started = await ceremony({ purpose: 'step-up' });
  await finish(started, await assertion(started.options));
}

/**
 * Makes a passkey on this device (or a security key, or a phone) and registers it under `name`; the
 * account's password when it has no second factor yet (decision 681).
 */
export async function addPasskey(name: string, password?: string): Promise<void> {
  const started = await ceremony(password === undefined ? { purpose: 'register' } : { purpose: 'register', password });
  const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(started.options);
  const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential | null;
  if (!credential) throw new ApiError(0, 'No passkey was made');
  await api('/api/auth/passkeys/verify', {
    method: 'POST',
    body: { challenge_token: started.challenge_token, response: credential.toJSON(), ...(name ? { name } : {}) },
  });
  // The ceremony marked this session with a second factor; a refreshed token carries it.
  await refresh();
}

function forget(reason: string | null) {
  access = null;
  clearTimeout(refreshTimer);
  current = null;
  notice = reason;
  changed();
}

export async function signOut(reason: string | null = null): Promise<void> {
  try {
    await sessionCall('logout');
  } finally {
    forget(reason);
  }
}

const ENDED = /account is|session|revoked/i;

/** A call to the API with the session's token; a 401 refreshes once and retries. */
export async function api<T>(
  path: string,
  init: {
    method?: string;
    body?: unknown;
    query?: Record<string, string | number | boolean | undefined | null>;
    /** Headers of the call's own (an `Idempotency-Key`); the session's are added. */
    headers?: Record<string, string>;
  } = {},
): Promise<T> {
  let url = path;
  if (init.query) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(init.query))
      if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
    const text = params.toString();
    if (text) url += `?${text}`;
  }
  const send = () => {
    const headers: Record<string, string> = { ...init.headers };
    if (access) headers.authorization = `Bearer ${access}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    return fetch(url, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  };
  let response = await send();
  if (response.status === 401 && access) {
    if (await refresh()) response = await send();
    else {
      forget('Your session ended; please sign in again.');
      throw await failure(response);
    }
  }
  if (!response.ok) {
    const error = await failure(response);
    // A suspended or deleted account, or a revoked session: this console is signed out at once.
    if (
      access &&
      response.status === 403 &&
      typeof error.detail === 'string' &&
      /^User account is /.test(error.detail)
    ) {
      await signOut(`Signed out: ${error.detail}.`);
    } else if (access && response.status === 401 && typeof error.detail === 'string' && ENDED.test(error.detail)) {
      forget('Your session ended; please sign in again.');
    }
    throw error;
  }
  if (response.status === 204) return undefined as T;
  const type = response.headers.get('content-type') ?? '';
  return (type.includes('json') ? await response.json() : await response.text()) as T;
}
