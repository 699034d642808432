// Fedify's inbox reads an activity twice from one JSON object: for integrity proofs (verifyObject
// parses it whole), and, when it has none, again once the HTTP signature has been checked, with the
// same loaders. Reading JSON-LD is a large part of an inbox request's CPU, so the second reading of
// an object takes what the first made of it. Only the next reading does: the entry is then dropped
// (and goes with its object in any case), so no reading outlives the request that made it.
import { Activity } from "@fedify/fedify/vocab";

const readings = new WeakMap<object, Promise<Activity>>();
const fromJsonLd = Activity.fromJsonLd;

// A subclass's reading calls this one as `super.fromJsonLd` on its expanded terms, with `this` the
// subclass, which makes the instance: those calls pass through untouched.
Activity.fromJsonLd = function (this: typeof Activity, json, options) {
  if (this !== Activity || typeof json !== "object" || json === null) return fromJsonLd.call(this, json, options);
  const earlier = readings.get(json);
  if (earlier) {
    readings.delete(json);
    return earlier;
  }
  const reading = fromJsonLd.call(this, json, options);
  readings.set(json, reading);
  return reading;
};
