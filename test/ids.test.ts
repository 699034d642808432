import assert from "node:assert/strict";
import { test } from "node:test";
import { idAt, idFloor, idTime, isId, newId } from "../src/domain/ids.ts";

test("ids are decimal strings that strictly increase within a process", () => {
  const ids = Array.from({ length: 5000 }, () => newId());
  for (let i = 1; i < ids.length; i++) assert.ok(BigInt(ids[i]) > BigInt(ids[i - 1]), `${ids[i]} > ${ids[i - 1]}`);
  assert.equal(new Set(ids).size, 5000);
  assert.match(ids[0], /^[1-9][0-9]{17,18}$/);
});

test("an id carries its creation time in its high bits", () => {
  const before = Date.now();
  const id = newId();
  const t = idTime(id).getTime();
  assert.ok(t >= before - 1 && t <= Date.now() + 2, `${t} near ${before}`);
  const past = new Date("2020-05-01T12:00:00.000Z");
  assert.equal(idTime(idAt(past)).toISOString(), "2020-05-01T12:00:00.000Z");
  assert.equal(idFloor(past), (BigInt(past.getTime()) << 16n).toString());
  assert.ok(BigInt(idAt(past)) >= BigInt(idFloor(past)));
});

test("isId accepts only positive 64-bit decimal strings", () => {
  assert.equal(isId("109876543210987654"), true);
  assert.equal(isId("9223372036854775807"), true);
  assert.equal(isId("9223372036854775808"), false);
  assert.equal(isId("0"), false);
  assert.equal(isId("-5"), false);
  assert.equal(isId("12a"), false);
  assert.equal(isId(""), false);
  assert.equal(isId(123), false);
});
