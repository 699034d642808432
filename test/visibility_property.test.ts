// Every read path against the single-status rule, in random worlds: accounts that follow (accepted
// and pending), mention, block each other either way, mute (for good, for a while, expired), block
// domains, are suspended or silenced; statuses of each visibility, boosts, replies, polls, some
// deleted, some edited to drop a mention; and relationships changed after the fact (with the
// clean-up jobs run or not). For each viewer, each read path through HTTP must show only statuses
// canSee allows, and, where the path has no rule of its own, all of them. Boosts listed anywhere
// carry only statuses canSee allows, and grouped notifications count exactly what the list shows.
// VISIBILITY_WORLDS sets how many worlds (2 by default); VISIBILITY_SEED replays one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { visibleIds } from "../src/services/statuses/read.ts";
import { insertStatus, remoteAccount, setAccount } from "./fixtures.ts";
import { startServer, type TestServer, type TestUser } from "./rig.ts";

const WORLDS = Number(process.env.VISIBILITY_WORLDS ?? 2);
const FIRST_SEED = Number(process.env.VISIBILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** mulberry32: a small seeded generator. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    chance: (p: number) => next() < p,
    pick: <T>(items: T[]): T => items[Math.floor(next() * items.length)],
  };
}

const VISIBILITIES = ["public", "unlisted", "private", "direct"];
const LOCAL = 5;

interface World {
  server: TestServer;
  users: TestUser[];
  /** Every status and boost made, deleted or not. */
  statuses: string[];
  /** The statuses that are not boosts, which replies may answer. */
  originals: string[];
  polls: Map<string, string>;
  suspended: Set<string>;
}

async function build(server: TestServer, seed: number): Promise<World> {
  const r = generator(seed);
  const users: TestUser[] = [];
  for (let i = 0; i < LOCAL; i++) users.push(await server.user(`u${i}`));
  await setAccount(server, users[LOCAL - 1].accountId, { locked: true });
  const remote = [await remoteAccount(server, "far", "a.example"), await remoteAccount(server, "near", "b.example")];
  const world: World = { server, users, statuses: [], originals: [], polls: new Map(), suspended: new Set() };
  const act = (user: TestUser, path: string, json?: unknown) => server.post(path, { token: user.token, json });

  const relate = async () => {
    for (const u of users) {
      for (const t of users) {
        if (u === t) continue;
        if (r.chance(0.5)) await act(u, `/api/v1/accounts/${t.accountId}/follow`);
        if (r.chance(0.08)) await act(u, `/api/v1/accounts/${t.accountId}/block`);
        if (r.chance(0.1)) {
          await act(u, `/api/v1/accounts/${t.accountId}/mute`, r.chance(0.5) ? { duration: 3600 } : {});
          if (r.chance(0.3)) {
            await server.rt.db
              .updateTable("mutes")
              .set({ expires_at: new Date(Date.now() - 1000) })
              .where("account_id", "=", u.accountId)
              .where("target_account_id", "=", t.accountId)
              .execute();
          }
        }
      }
      if (r.chance(0.3)) await act(u, "/api/v1/domain_blocks", { domain: r.pick(["a.example", "b.example"]) });
    }
    // Some pending requests accepted.
    const owner = users[LOCAL - 1];
    for (const u of users) {
      if (r.chance(0.5)) await act(owner, `/api/v1/follow_requests/${u.accountId}/authorize`);
    }
  };

  const write = async () => {
    for (const id of remote) {
      for (let i = 0; i < 2; i++) {
        const status = await insertStatus(server, id, { visibility: r.pick(["public", "unlisted"]), local: false });
        world.statuses.push(status);
        world.originals.push(status);
      }
    }
    for (let round = 0; round < 3; round++) {
      for (const u of users) {
        const mentioned = users.filter((t) => t !== u && r.chance(0.25)).map((t) => `@${t.username}`);
        const json: Record<string, unknown> = {
          status: `${mentioned.join(" ")} hello${r.chance(0.3) ? " #probe" : ""}`,
          visibility: r.pick(VISIBILITIES),
        };
        if (r.chance(0.3)) json.in_reply_to_id = r.pick(world.originals);
        if (r.chance(0.2)) json.poll = { options: ["yes", "no"], expires_in: 3600 };
        let res = await act(u, "/api/v1/statuses", json);
        // A reply to a status its author may not see is refused: posted as a new thread instead.
        if (res.status === 404) res = await act(u, "/api/v1/statuses", { ...json, in_reply_to_id: undefined });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        world.statuses.push(res.body.id);
        world.originals.push(res.body.id);
        if (res.body.poll) world.polls.set(res.body.id, res.body.poll.id);
        if (r.chance(0.35)) {
          const boost = await act(u, `/api/v1/statuses/${r.pick(world.statuses)}/reblog`);
          if (boost.status === 200) world.statuses.push(boost.body.id);
        }
        for (const kind of ["favourite", "bookmark"]) {
          if (r.chance(0.4)) await act(u, `/api/v1/statuses/${r.pick(world.statuses)}/${kind}`);
        }
      }
    }
  };

  const change = async () => {
    for (const u of users) {
      const other = r.pick(users.filter((t) => t !== u));
      if (r.chance(0.15)) await act(u, `/api/v1/accounts/${other.accountId}/block`);
      if (r.chance(0.15)) await act(u, `/api/v1/accounts/${other.accountId}/remove_from_followers`);
      if (r.chance(0.15)) await act(u, `/api/v1/accounts/${other.accountId}/unfollow`);
      if (r.chance(0.15)) await act(u, "/api/v1/domain_blocks", { domain: r.pick(["a.example", "b.example"]) });
      if (r.chance(0.2)) {
        const own = await server.get(`/api/v1/accounts/${u.accountId}/statuses`, { token: u.token });
        // An undone boost is deleted outright, unlike a status.
        const boost = own.body.find((s: { reblog: unknown }) => s.reblog !== null);
        if (boost && r.chance(0.5)) await act(u, `/api/v1/statuses/${boost.reblog.id}/unreblog`);
        const original = own.body.find((s: { reblog: unknown }) => s.reblog === null);
        if (original) {
          const action = r.chance(0.5) ? "delete" : "edit";
          if (action === "delete") await server.delete(`/api/v1/statuses/${original.id}`, { token: u.token });
          else await server.put(`/api/v1/statuses/${original.id}`, { token: u.token, json: { status: "no one" } });
        }
      }
    }
    if (r.chance(0.5)) {
      const victim = r.pick(users.slice(0, LOCAL - 1));
      await setAccount(server, victim.accountId, { suspended_at: new Date() });
      world.suspended.add(victim.accountId);
    }
    if (r.chance(0.5)) await setAccount(server, r.pick(remote), { silenced_at: new Date() });
    if (r.chance(0.5)) await setAccount(server, r.pick(remote), { suspended_at: new Date() });
  };

  await relate();
  await write();
  await server.settle();
  await change();
  // Half the worlds are read while the clean-up jobs of the changes may still be running.
  if (r.chance(0.5)) await server.settle();
  return world;
}

interface Listed {
  id: string;
  reblog?: { id: string } | null;
}

/**
 * What each read path lists for a viewer, as ids of statuses; `boosted` gathers the statuses the
 * listed boosts carry, from every path; `groups` the grouped notifications' counts and samples.
 */
async function readPaths(world: World, viewer: TestUser | null) {
  const { server, users } = world;
  const token = viewer?.token;
  const get = async (path: string, query: Record<string, string> = {}) => {
    const res = await server.get(path, { token, query: { limit: "40", ...query } });
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const boosted: string[] = [];
  const ids = (list: Listed[]) =>
    list.map((s) => {
      if (s.reblog) boosted.push(s.reblog.id);
      return s.id;
    });
  let groups: { notifications_count: number; sample_account_ids: string[] }[] = [];
  let senders: string[] = [];
  const paths: Record<string, string[]> = {
    public: ids(await get("/api/v1/timelines/public")),
    local: ids(await get("/api/v1/timelines/public", { local: "true" })),
    hashtag: ids(await get("/api/v1/timelines/tag/probe")),
  };
  for (const u of users) paths[`account ${u.username}`] = ids(await get(`/api/v1/accounts/${u.accountId}/statuses`));
  if (viewer) {
    paths.home = ids(await get("/api/v1/timelines/home"));
    paths.favourites = ids(await get("/api/v1/favourites"));
    paths.bookmarks = ids(await get("/api/v1/bookmarks"));
    const v1: { account: { id: string }; status?: Listed }[] = await get("/api/v1/notifications");
    senders = v1.map((n) => n.account.id);
    paths["notifications v1"] = ids(v1.flatMap((n) => (n.status ? [n.status] : [])));
    const v2 = await get("/api/v2/notifications");
    paths["notifications v2"] = ids(v2.statuses);
    groups = v2.notification_groups;
    paths.conversations = (await get("/api/v1/conversations")).map(
      (c: { last_status: { id: string } }) => c.last_status.id,
    );
    const list = await server.post("/api/v1/lists", { token, json: { title: "all" } });
    const following = await get(`/api/v1/accounts/${viewer.accountId}/following`);
    if (following.length > 0) {
      await server.post(`/api/v1/lists/${list.body.id}/accounts`, {
        token,
        json: { account_ids: ids(following) },
      });
      await server.settle();
    }
    paths.list = ids(await get(`/api/v1/timelines/list/${list.body.id}`));
    await server.delete(`/api/v1/lists/${list.body.id}`, { token });
  }
  return { paths, boosted, groups, notifications: senders };
}

async function check(world: World, seed: number) {
  const { server } = world;
  const viewers: (TestUser | null)[] = [null, ...world.users.filter((u) => !world.suspended.has(u.accountId))];
  const rows = await server.rt.db
    .selectFrom("statuses")
    .select(["id", "account_id", "visibility", "reblog_of_id", "in_reply_to_id", "in_reply_to_account_id"])
    .execute();
  const byId = new Map(rows.map((s) => [s.id, s]));
  for (const viewer of viewers) {
    const who = viewer?.username ?? "anonymous";
    const allowed = new Set(await visibleIds(server.rt, viewer?.accountId ?? null, [...byId.keys()]));
    const label = (path: string) => `seed ${seed}, viewer ${who}, ${path}`;

    // The single status, its thread and its poll say the same as the rule.
    for (const id of world.statuses) {
      const res = await server.get(`/api/v1/statuses/${id}`, { token: viewer?.token });
      assert.equal(res.status, allowed.has(id) ? 200 : 404, label(`status ${id}`));
      const context = await server.get(`/api/v1/statuses/${id}/context`, { token: viewer?.token });
      assert.equal(context.status, allowed.has(id) ? 200 : 404, label(`context ${id}`));
      if (context.status === 200) {
        for (const s of [...context.body.ancestors, ...context.body.descendants]) {
          assert.ok(allowed.has(s.id), label(`context of ${id} shows ${s.id}`));
        }
      }
      const poll = world.polls.get(id);
      if (poll) {
        const shown = await server.get(`/api/v1/polls/${poll}`, { token: viewer?.token });
        assert.equal(shown.status, allowed.has(id) ? 200 : 404, label(`poll of ${id}`));
      }
    }

    const { paths, boosted, groups, notifications } = await readPaths(world, viewer);
    for (const [path, ids] of Object.entries(paths)) {
      for (const id of ids) assert.ok(allowed.has(id), label(`${path} shows ${id}, which canSee refuses`));
    }
    for (const id of boosted) assert.ok(allowed.has(id), label(`a listing boosts ${id}, which canSee refuses`));
    // Grouped notifications count exactly what the list shows, when both fit on one page.
    if (notifications.length < 40 && groups.length < 40) {
      const counted = groups.reduce((sum, g) => sum + g.notifications_count, 0);
      assert.equal(counted, notifications.length, label("notification groups count what the list shows"));
      const shown = new Set(notifications);
      for (const g of groups) {
        for (const id of g.sample_account_ids) assert.ok(shown.has(id), label(`notification group samples ${id}`));
      }
    }
    // Paths with no rule of their own show every status the rule allows.
    for (const u of world.users) {
      const expected = [...allowed].filter((id) => byId.get(id)!.account_id === u.accountId);
      assert.deepEqual(
        paths[`account ${u.username}`].toSorted(),
        expected.toSorted(),
        label(`account ${u.username} lists all it may`),
      );
    }
    if (viewer) {
      for (const table of ["favourites", "bookmarks"] as const) {
        const saved = await server.rt.db
          .selectFrom(table)
          .select("status_id")
          .where("account_id", "=", viewer.accountId)
          .execute();
        const expected = saved.map((s) => s.status_id).filter((id) => allowed.has(id));
        assert.deepEqual(paths[table].toSorted(), expected.toSorted(), label(`${table} lists all it may`));
      }
      // Notifications: every stored one about a status the viewer may see, and no other.
      const stored = await server.rt.db
        .selectFrom("notifications as n")
        .innerJoin("accounts as a", "a.id", "n.from_account_id")
        .select("n.status_id")
        .where("n.account_id", "=", viewer.accountId)
        .where("n.filtered", "=", false)
        .where("a.suspended_at", "is", null)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("blocks as b")
                .select("b.id")
                .whereRef("b.target_account_id", "=", "n.from_account_id")
                .where("b.account_id", "=", viewer.accountId),
            ),
          ),
        )
        .where("n.status_id", "is not", null)
        .execute();
      if (stored.length <= 40) {
        const expected = new Set(stored.map((n) => n.status_id!).filter((id) => allowed.has(id)));
        assert.deepEqual(new Set(paths["notifications v1"]), expected, label("notifications list all they may"));
      }
    }
  }
}

for (let i = 0; i < WORLDS; i++) {
  const seed = FIRST_SEED + i;
  test(`world ${i + 1} of ${WORLDS} (VISIBILITY_SEED=${seed})`, { timeout: 120_000 }, async () => {
    const server = await startServer();
    try {
      await check(await build(server, seed), seed);
    } catch (error) {
      console.error(`visibility property failed: replay with VISIBILITY_SEED=${seed} VISIBILITY_WORLDS=1`);
      throw error;
    } finally {
      await server.close();
    }
  });
}
