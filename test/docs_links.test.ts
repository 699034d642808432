// The README and the pages under docs/: every relative link names a file that exists, and every
// `#anchor` one of the headings of the page it points into (as GitHub makes anchors of headings).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((n) => n.endsWith(".md"))
    .map((n) => `docs/${n}`),
];

/** The anchors GitHub gives a Markdown file's headings (a repeated heading gets -1, -2…). */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, "")
      .replaceAll(" ", "-");
    const n = seen.get(slug) ?? 0;
    found.add(n === 0 ? slug : `${slug}-${n}`);
    seen.set(slug, n + 1);
  }
  return found;
}

/** Each broken relative link of the pages, as "page: target". */
function brokenLinks(): string[] {
  const broken: string[] = [];
  for (const page of PAGES) {
    const text = readFileSync(join(ROOT, page), "utf8");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split("#", 2);
      const file = path ? join(ROOT, dirname(page), path) : join(ROOT, page);
      if (!existsSync(file)) {
        broken.push(`${page}: ${target} (no file ${relative(ROOT, file)})`);
      } else if (anchor !== undefined && !anchors(readFileSync(file, "utf8")).has(anchor)) {
        broken.push(`${page}: ${target} (no such heading)`);
      }
    }
  }
  return broken;
}

test("every relative link of the README and docs/ leads to a file and heading that exist", () => {
  assert.ok(PAGES.length > 1);
  assert.deepEqual(brokenLinks(), []);
});

test("the README's links reach every page under docs/", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const unlinked = PAGES.filter((p) => p.startsWith("docs/") && !readme.includes(`](${p}`));
  assert.deepEqual(unlinked, []);
});
