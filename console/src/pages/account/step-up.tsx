// Asked for when an operation needs a recent second factor (decision 143): a passkey, or a code
// from the authenticator app (decision 204). Every page whose actions may need one shows it the same
// way: `StepUpPrompt` under the action's error, which the API words as STEP_UP_REQUIRED.
import { useState } from 'preact/hooks';
import { stepUp, stepUpWithPasskey } from '../../session.ts';
import { ErrorNote, Field, TextInput, useAction } from '../../ui.tsx';

/** The API's answer to an operation that needs a fresh second factor. */
const STEP_UP_REQUIRED = 'Second factor required';

/** The input of a code from the authenticator app, for a `Field` (which gives it its id). */
export function CodeInput(props: { value: string; onValue: (value: string) => void }) {
  return <TextInput inputMode="numeric" autoComplete="one-time-code" required {...props} />;
}

/** Asked for when an operation needs a recent second factor (decision 143). */
function StepUpForm(props: { onDone: () => void }) {
  const [code, setCode] = useState('');
  const action = useAction();
  const confirmWith = async (step: () => Promise<void>) => {
    const ok = await action.run(async () => {
      await step();
      return true;
    });
    if (ok) props.onDone();
  };
  const submit = (event: Event) => {
    event.preventDefault();
    void confirmWith(() => stepUp(code.trim()));
  };
  return (
    <form class="row" onSubmit={submit}>
      <button type="button" disabled={action.pending} onClick={() => void confirmWith(stepUpWithPasskey)}>
        Confirm with a passkey
      </button>
      <Field label="Authentication code" hint="This needs your second factor again; then repeat the action.">
        <CodeInput value={code} onValue={setCode} />
      </Field>
      <button type="submit" disabled={action.pending}>
        Confirm
      </button>
      <ErrorNote error={action.error} />
    </form>
  );
}

/** The step-up form while `action` failed for want of a fresh second factor; once confirmed, the error goes. */
export function StepUpPrompt(props: { action: { error: string | null; setError: (error: string | null) => void } }) {
  const { action } = props;
  return action.error === STEP_UP_REQUIRED ? <StepUpForm onDone={() => action.setError(null)} /> : null;
}
