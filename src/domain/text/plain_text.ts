// HTML to the text a person would read, for remote content shown or searched as text: paragraphs
// and other blocks become blank lines, <br> and list items line breaks, entities are decoded, and
// what Mastodon's sanitizer drops with its content (scripts, styles, SVG…) is left out.
// Runs of HTML white space collapse to one space as a browser shows them, except inside <pre>.
import { Parser } from "htmlparser2";

const SKIPPED = new Set(
  "head iframe math noembed noframes noscript plaintext script style svg template textarea title xmp".split(" "),
);

// The number of line breaks a block puts between its text and the text around it.
const BREAKS = new Map<string, number>([
  ..."p blockquote pre h1 h2 h3 h4 h5 h6 ul ol table hr".split(" ").map((name) => [name, 2] as const),
  ..."li div tr dt dd".split(" ").map((name) => [name, 1] as const),
]);

export function htmlToPlainText(html: string): string {
  let text = "";
  let owedBreaks = 0;
  let skipping = 0;
  let preformatted = 0;

  const write = (chunk: string) => {
    if (owedBreaks > 0 && text !== "") {
      text = withoutTrailingSpaces(text);
      text += "\n".repeat(Math.max(0, owedBreaks - trailingNewlines(text)));
    }
    owedBreaks = 0;
    text += chunk;
  };

  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIPPED.has(name)) skipping++;
        if (skipping > 0) return;
        if (name === "pre") preformatted++;
        if (name === "br") write("\n");
        else owedBreaks = Math.max(owedBreaks, BREAKS.get(name) ?? 0);
      },
      onclosetag(name) {
        if (SKIPPED.has(name)) skipping--;
        if (skipping > 0) return;
        if (name === "pre") preformatted--;
        owedBreaks = Math.max(owedBreaks, BREAKS.get(name) ?? 0);
      },
      ontext(data) {
        if (skipping > 0) return;
        let chunk = preformatted > 0 ? data : data.replace(/[\t\n\f\r ]+/g, " ");
        const lineStart = owedBreaks > 0 || text === "" || text.endsWith("\n");
        if (preformatted === 0 && lineStart) chunk = chunk.replace(/^ /, "");
        if (chunk !== "") write(chunk);
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return text.replace(/ +\n/g, "\n").replace(/^\n+|[\n ]+$/g, "");
}

// Both look at the end of the text only, so that writing stays linear in the text's length.
function withoutTrailingSpaces(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === " ") end--;
  return text.slice(0, end);
}

function trailingNewlines(text: string): number {
  let count = 0;
  while (count < text.length && text[text.length - 1 - count] === "\n") count++;
  return count;
}
