// OAuth client applications: registration, lookup, client authentication.
import type { Selectable } from "kysely";
import type { OAuthApplicationsTable } from "../../db/schema.ts";
import { unprocessable } from "../../domain/errors.ts";
import { newId } from "../../domain/ids.ts";
import { redirectUriProblem } from "../../domain/redirect_uris.ts";
import { unknownScopes } from "../../domain/scopes.ts";
import { randomToken, sha256 } from "../../domain/secrets.ts";
import type { Runtime } from "../../runtime.ts";

export type Application = Selectable<OAuthApplicationsTable>;

export interface NewApplication {
  name: string;
  redirectUris: string[];
  scopes: string[];
  website?: string | null;
  ownerUserId?: string | null;
}

const MAX_NAME = 60;
const MAX_URL = 2000;

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/**
 * Every problem with a registration, in Mastodon's words and order (Doorkeeper's checks, then
 * Mastodon's own), joined into one 422 as Rails joins a record's errors.
 */
function validateApplication(input: NewApplication): void {
  const problems: string[] = [];
  if (input.name.trim() === "") problems.push("Application name can't be blank");
  if (input.redirectUris.length === 0) problems.push("Redirect URI can't be blank");
  for (const uri of input.redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) problems.push(`Redirect URI ${problem}`);
  }
  if (unknownScopes(input.scopes).length > 0) problems.push("Scopes doesn't match configured on the server.");
  if (input.name.length > MAX_NAME) {
    problems.push(`Application name is too long (maximum is ${MAX_NAME} characters)`);
  }
  if (input.website) {
    if (!isWebUrl(input.website)) problems.push("Application website is not a valid URL");
    if (input.website.length > MAX_URL) {
      problems.push(`Application website is too long (maximum is ${MAX_URL} characters)`);
    }
  }
  if (input.redirectUris.join("\n").length > MAX_URL) {
    problems.push(`Redirect URI is too long (maximum is ${MAX_URL} characters)`);
  }
  if (problems.length > 0) throw unprocessable(`Validation failed: ${[...new Set(problems)].join(", ")}`);
}

/** Creates an application; the client secret is returned once and only its hash is kept. */
export async function createApplication(rt: Runtime, input: NewApplication) {
  validateApplication(input);
  const clientSecret = randomToken();
  const row: Application = {
    id: newId(),
    name: input.name.trim(),
    website: input.website || null,
    redirect_uris: input.redirectUris,
    scopes: input.scopes.join(" "),
    client_id: randomToken(),
    client_secret_hash: sha256(clientSecret),
    owner_user_id: input.ownerUserId ?? null,
    created_at: new Date(),
  };
  await rt.db
    .insertInto("oauth_applications")
    .values({ ...row, redirect_uris: JSON.stringify(row.redirect_uris) })
    .execute();
  return { ...row, clientSecret };
}

export async function findApplication(
  rt: Runtime,
  by: { id?: string; clientId?: string },
): Promise<Application | null> {
  let q = rt.db.selectFrom("oauth_applications").selectAll();
  if (by.id) q = q.where("id", "=", by.id);
  else if (by.clientId) q = q.where("client_id", "=", by.clientId);
  else return null;
  return (await q.executeTakeFirst()) ?? null;
}

/** The application whose id and secret these are, or null. */
export async function authenticateClient(
  rt: Runtime,
  clientId: string,
  clientSecret: string,
): Promise<Application | null> {
  const app = await findApplication(rt, { clientId });
  return app && app.client_secret_hash === sha256(clientSecret) ? app : null;
}
