// The inbox's second reading of an activity's JSON object takes the first's result
// (src/federation/activity_readings.ts); every reading still makes the activity's own class.
import assert from "node:assert/strict";
import { test } from "node:test";
import "../src/federation/activity_readings.ts";
import { Activity, Create, Follow, Note } from "@fedify/fedify/vocab";

const AS = "https://www.w3.org/ns/activitystreams";

test("the next reading of the same object is the first one's; later ones and other objects read anew", async () => {
  const json = {
    "@context": AS,
    id: "https://remote.test/activities/1",
    type: "Create",
    actor: "https://remote.test/users/a",
    object: { id: "https://remote.test/notes/1", type: "Note", content: "Hello" },
  };
  const first = await Activity.fromJsonLd(json);
  assert.ok(first instanceof Create);
  assert.ok((await first.getObject()) instanceof Note);
  assert.equal(await Activity.fromJsonLd(json), first);
  const third = await Activity.fromJsonLd(json);
  assert.notEqual(third, first);
  assert.ok(third instanceof Create);
  assert.notEqual(await Activity.fromJsonLd({ ...json }), third);
});

test("readings through a subclass make that class", async () => {
  const json = {
    "@context": AS,
    id: "https://remote.test/activities/2",
    type: "Follow",
    actor: "https://remote.test/users/a",
    object: "https://local.test/users/b",
  };
  assert.ok((await Activity.fromJsonLd(json)) instanceof Follow);
  assert.ok((await Follow.fromJsonLd(json)) instanceof Follow);
  assert.ok((await Create.fromJsonLd({ ...json, type: "Create" })) instanceof Create);
});
