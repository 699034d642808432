// The activity fixtures hold together: each is an activity of the sending actor with a unique id,
// uses only the known placeholders, and names what its kind needs.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  activityFixtureNames,
  activityFixtureText,
  loadActivity,
  PLACEHOLDERS,
  type Placeholder,
} from "./activity_fixtures.ts";

const VALUES = Object.fromEntries(
  PLACEHOLDERS.map((p) => [p, p === "origin" ? "https://remote.example" : `value-of-${p}`]),
) as Record<Placeholder, string>;
VALUES.actor = "https://remote.example/users/sender";

const names = activityFixtureNames();

test("every software's fixtures are there", () => {
  assert.ok(names.length >= 30, `${names.length} fixtures`);
  for (const software of ["mastodon", "gotosocial", "misskey", "pleroma"]) {
    assert.ok(
      names.some((n) => n.startsWith(`${software}/`)),
      software,
    );
  }
});

test("placeholders are known, filled everywhere, and the sender is the actor", () => {
  const ids = new Set<string>();
  for (const name of names) {
    for (const [, key] of activityFixtureText(name).matchAll(/\{\{(\w+)\}\}/g)) {
      assert.ok((PLACEHOLDERS as readonly string[]).includes(key), `${name}: {{${key}}}`);
    }
    const activity = loadActivity(name, VALUES);
    assert.ok(!JSON.stringify(activity).includes("{{"), name);
    assert.equal(activity.actor, VALUES.actor, name);
    // Mastodon's Add and Remove (of pins) carry no id.
    if (activity.id === undefined && ["Add", "Remove"].includes(activity.type as string)) continue;
    assert.equal(typeof activity.id, "string", name);
    assert.ok(!ids.has(activity.id as string), `${name}: the id is used twice`);
    ids.add(activity.id as string);
  }
});

test("each kind of activity carries what it needs", () => {
  const types = new Map<string, string>();
  for (const name of names) {
    const a = loadActivity(name, VALUES);
    const object = a.object as Record<string, unknown> | string;
    types.set(name, a.type as string);
    switch (a.type) {
      case "Create":
      case "Update":
        assert.equal(typeof object, "object", name);
        assert.ok(["Note", "Question", "Person", "ChatMessage"].includes((object as { type: string }).type), name);
        break;
      case "Undo":
      case "Accept":
      case "Reject":
        assert.ok(["Follow", "Like", "Announce", "Block"].includes((object as { type: string }).type), name);
        break;
      case "Flag":
        // The reported account, alone or with its statuses.
        assert.ok([object].flat().includes(VALUES.target), name);
        break;
      case "Move":
        // The actor moves itself.
        assert.deepEqual([object, a.target], [VALUES.actor, VALUES.move_target], name);
        break;
      case "Add":
      case "Remove":
        assert.equal(typeof object, "string", name);
        assert.equal(a.target, `${VALUES.actor}/collections/featured`, name);
        break;
      default:
        assert.ok(["Follow", "Like", "Announce", "Block", "Delete", "EmojiReact"].includes(a.type as string), name);
    }
  }
  for (const wanted of [
    "Follow",
    "Accept",
    "Reject",
    "Undo",
    "Create",
    "Update",
    "Delete",
    "Announce",
    "Like",
    "Block",
    "Flag",
    "Add",
    "Remove",
    "Move",
  ]) {
    assert.ok([...types.values()].includes(wanted), wanted);
  }
  const vote = loadActivity("mastodon/create_poll_vote", VALUES).object as Record<string, unknown>;
  assert.deepEqual([vote.type, vote.name, vote.inReplyTo], ["Note", VALUES.target_poll_option, VALUES.target_poll]);
});
