// The deprecated v1 filters, still used by older apps: a v1 "filter" is one keyword with its
// group's settings, so the v1 API reads and writes the same rows as v2.
import { ApiError } from "../../domain/errors.ts";
import type { Runtime } from "../../runtime.ts";
import { createFilter, listFilters, ownFilter, updateFilter } from "./filters.ts";
import { deleteKeyword, ownKeyword } from "./keywords.ts";

export interface V1FilterInput {
  phrase?: string;
  context?: string[];
  irreversible?: boolean;
  wholeWord?: boolean;
  expiresIn?: number | null;
}

export async function listV1Filters(rt: Runtime, accountId: string) {
  return (await listFilters(rt, accountId)).flatMap((f) =>
    f.keywords.map((keyword) => ({ keyword, filter: f.filter })),
  );
}

export async function getV1Filter(rt: Runtime, accountId: string, keywordId: string) {
  const keyword = await ownKeyword(rt.db, accountId, keywordId);
  return { keyword, filter: await ownFilter(rt.db, accountId, keyword.filter_id) };
}

export async function createV1Filter(rt: Runtime, accountId: string, v: V1FilterInput) {
  const created = await createFilter(rt, accountId, {
    title: v.phrase,
    context: v.context,
    action: v.irreversible ? "hide" : "warn",
    expiresIn: v.expiresIn,
    keywords: [{ keyword: v.phrase, wholeWord: v.wholeWord ?? true }],
  });
  return { keyword: created.keywords[0], filter: created.filter };
}

export async function updateV1Filter(rt: Runtime, accountId: string, keywordId: string, v: V1FilterInput) {
  const { filter } = await getV1Filter(rt, accountId, keywordId);
  const changesGroup = v.context !== undefined || v.irreversible !== undefined || v.expiresIn !== undefined;
  if (changesGroup) {
    const count = await rt.db
      .selectFrom("filter_keywords")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("filter_id", "=", filter.id)
      .executeTakeFirstOrThrow();
    if (Number(count.n) > 1) {
      throw new ApiError(
        422,
        "These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.",
      );
    }
  }
  await updateFilter(rt, accountId, filter.id, {
    context: v.context,
    action: v.irreversible === undefined ? undefined : v.irreversible ? "hide" : "warn",
    expiresIn: v.expiresIn,
    keywords: [{ id: keywordId, keyword: v.phrase, wholeWord: v.wholeWord }],
  });
  return getV1Filter(rt, accountId, keywordId);
}

export async function deleteV1Filter(rt: Runtime, accountId: string, keywordId: string): Promise<void> {
  await deleteKeyword(rt, accountId, keywordId);
}
