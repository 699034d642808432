// The Application entity (and CredentialApplication, with the secret, right after registration).
import type { Application } from "../services/auth/apps.ts";

export function renderApplication(app: Application, vapidKey: string) {
  return {
    id: app.id,
    name: app.name,
    website: app.website,
    scopes: app.scopes.split(" ").filter(Boolean),
    redirect_uri: app.redirect_uris.join("\n"),
    redirect_uris: app.redirect_uris,
    vapid_key: vapidKey,
  };
}

export function renderCredentialApplication(app: Application & { clientSecret: string }, vapidKey: string) {
  return {
    ...renderApplication(app, vapidKey),
    client_id: app.client_id,
    client_secret: app.clientSecret,
    client_secret_expires_at: 0,
  };
}
