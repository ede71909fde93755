// Asked for when an operation needs a recent second factor (decision 143): a passkey, or a code
// from the authenticator app (decision 204).
import { useState } from 'preact/hooks';
import { stepUp, stepUpWithPasskey } from '../../session.ts';
import { ErrorNote, Field, useAction } from '../../ui.tsx';

/** Asked for when an operation needs a recent second factor (decision 143). */
export function StepUpForm(props: { onDone: () => void }) {
  const [code, setCode] = useState('');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const ok = await action.run(async () => {
      await stepUp(code.trim());
      return true;
    });
    if (ok) props.onDone();
  };
  const withPasskey = async () => {
    const ok = await action.run(async () => {
      await stepUpWithPasskey();
      return true;
    });
    if (ok) props.onDone();
  };
  return (
    <form class="row" onSubmit={submit}>
      <button type="button" disabled={action.pending} onClick={() => void withPasskey()}>
        Confirm with a passkey
      </button>
      <Field label="Authentication code" hint="This needs your second factor again; then repeat the action.">
        <input
          inputMode="numeric"
          autoComplete="one-time-code"
          required
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
        />
      </Field>
      <button type="submit" disabled={action.pending}>
        Confirm
      </button>
      <ErrorNote error={action.error} />
    </form>
  );
}
