// `rookery announcements add|list|publish|unpublish|remove`: what operators tell everyone signed in.
import { ApiError } from "../domain/errors.ts";
import {
  addAnnouncement,
  allAnnouncements,
  publishAnnouncement,
  removeAnnouncement,
  unpublishAnnouncement,
} from "../services/announcements/announcements.ts";
import { type Command, parse, UsageError, withRuntime } from "./command.ts";

function date(value: string | undefined, option: string): Date | null {
  if (value === undefined) return null;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new UsageError(`--${option} must be a date or time (ISO 8601)`);
  return d;
}

export const announcementsCommand: Command = {
  name: "announcements",
  usage:
    "announcements add TEXT [--starts-at T] [--ends-at T] [--all-day] [--publish-at T]\n" +
    "  rookery announcements list\n  rookery announcements publish|unpublish|remove ID",
  summary: "Announcements shown to everyone signed in (scheduled with --publish-at, taken back with unpublish)",
  async run(args) {
    const { values, positionals } = parse(args, {
      "starts-at": { type: "string" },
      "ends-at": { type: "string" },
      "all-day": { type: "boolean" },
      "publish-at": { type: "string" },
    });
    const [action, arg] = positionals;
    try {
      await withRuntime(async (rt) => {
        if (action === "add" && arg) {
          const a = await addAnnouncement(rt, {
            text: arg,
            startsAt: date(values["starts-at"], "starts-at"),
            endsAt: date(values["ends-at"], "ends-at"),
            allDay: values["all-day"],
            publishAt: date(values["publish-at"], "publish-at"),
          });
          console.log(`Added announcement ${a.id}, shown from ${a.published_at.toISOString()}.`);
        } else if (action === "list") {
          for (const a of await allAnnouncements(rt)) {
            const until = a.ends_at ? ` until ${a.ends_at.toISOString()}` : "";
            const shown = a.published ? `from ${a.published_at.toISOString()}${until}` : "unpublished";
            console.log(`${a.id}\t${shown}\t${a.text}`);
          }
        } else if (action === "publish" && arg) {
          await publishAnnouncement(rt, arg);
          console.log(`Published announcement ${arg}.`);
        } else if (action === "unpublish" && arg) {
          await unpublishAnnouncement(rt, arg);
          console.log(`Unpublished announcement ${arg}.`);
        } else if (action === "remove" && arg) {
          await removeAnnouncement(rt, arg);
          console.log(`Removed announcement ${arg}.`);
        } else {
          throw new UsageError("Unknown announcements command.");
        }
      });
    } catch (error) {
      if (error instanceof ApiError) throw new Error(error.status === 404 ? "Not found." : error.message);
      throw error;
    }
  },
};
