// Sign-in: e-mail and password, then the second factor when the account has it (decision 141); or a
// passkey alone, or a passkey as the second factor (decision 204).
import { useState } from 'preact/hooks';
import { navigate } from '../router.ts';
import {
  type MfaMethod,
  session,
  signIn,
  signInWithPasskey,
  verifySecondFactor,
  verifyWithPasskey,
} from '../session.ts';
import { ErrorNote, Field, useAction } from '../ui.tsx';

export function SignInPage(props: { next?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [mfaToken, setMfaToken] = useState<string | null>(null);
  const [methods, setMethods] = useState<MfaMethod[]>([]);
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState(false);
  const action = useAction();
  const done = () => navigate(props.next && props.next !== '/sign-in' ? props.next : '/account', true);

  const submitPassword = async (event: Event) => {
    event.preventDefault();
    const step = await action.run(() => signIn(email.trim(), password));
    if (!step) return;
    setPassword('');
    if (step.done) done();
    else {
      setMethods(step.methods);
      setMfaToken(step.mfaToken);
    }
  };
  const withPasskey = async () => {
    const ok = await action.run(async () => {
      await (mfaToken === null ? signInWithPasskey(email.trim()) : verifyWithPasskey(mfaToken));
      return true;
    });
    if (ok) done();
  };
  const passkeyButton = (label: string) => (
    <button type="button" class="ghost" disabled={action.pending} onClick={() => void withPasskey()}>
      {label}
    </button>
  );
  const submitCode = async (event: Event) => {
    event.preventDefault();
    const ok = await action.run(async () => {
      await verifySecondFactor(mfaToken!, code.trim(), recovery);
      return true;
    });
    if (ok) done();
  };

  if (session.user) {
    return (
      <section class="card narrow">
        <h1>Signed in</h1>
        <p>You are signed in as {session.user.email}.</p>
      </section>
    );
  }

  return (
    <section class="card narrow">
      <h1>Sign in</h1>
      {session.notice ? (
        <p role="status" class="notice">
          {session.notice}
        </p>
      ) : null}
      {mfaToken === null ? (
        <form onSubmit={submitPassword}>
          <Field label="Email">
            <input
              type="email"
              name="email"
              autoComplete="username"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          </Field>
          <Field label="Password">
            <input
              type="password"
              name="password"
              autoComplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </Field>
          <ErrorNote error={action.error} />
          <div class="row">
            <button type="submit" disabled={action.pending}>
              Sign in
            </button>
            {passkeyButton('Sign in with a passkey')}
          </div>
        </form>
      ) : !methods.includes('totp') ? (
        <div>
          <p>Your account has two-factor authentication on: confirm with your passkey.</p>
          <ErrorNote error={action.error} />
          <button type="button" disabled={action.pending} onClick={() => void withPasskey()}>
            Use a passkey
          </button>
        </div>
      ) : (
        <form onSubmit={submitCode}>
          <p>Your account has two-factor authentication on.</p>
          <Field
            label={recovery ? 'Recovery code' : 'Authentication code'}
            hint={
              recovery
                ? 'One of the codes you saved when you turned two-factor on.'
                : 'The 6-digit code from your authenticator app.'
            }
          >
            <input
              name="code"
              autoComplete="one-time-code"
              inputMode={recovery ? 'text' : 'numeric'}
              required
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
          </Field>
          <ErrorNote error={action.error} />
          <div class="row">
            <button type="submit" disabled={action.pending}>
              Verify
            </button>
            <button type="button" class="ghost" onClick={() => setRecovery(!recovery)}>
              {recovery ? 'Use an authenticator code' : 'Use a recovery code'}
            </button>
            {methods.includes('webauthn') ? passkeyButton('Use a passkey') : null}
          </div>
        </form>
      )}
    </section>
  );
}
