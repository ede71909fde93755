// What the rag-settings module uses from outside it: only the bearer guards of its routes. A deps file
// all the same, so every module declares what it needs in one shape. app.ts passes it in.
import type { Guards } from '../../platform/auth/guards.ts';

export interface RagSettingsDeps {
  guards: Guards;
}
