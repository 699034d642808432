import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  countCharacters,
  countGraphemes,
  detectLanguage,
  extractHashtags,
  extractMentions,
  extractUrls,
  htmlToPlainText,
  isValidHashtag,
  mentionKey,
  normalizeHashtag,
  type RenderOptions,
  renderPlainText,
  renderProfileField,
  sanitizeRemoteHtml,
} from "../src/domain/text/index.ts";

const options: RenderOptions = {
  mentions: new Map([
    ["alice", { url: "https://rookery.example/@alice", username: "alice", acct: "alice" }],
    ["bob@remote.example", { url: "https://remote.example/@bob", username: "bob", acct: "bob@remote.example" }],
    [
      "trwnh@mastodon.social",
      { url: "https://mastodon.social/@trwnh", username: "trwnh", acct: "trwnh@mastodon.social" },
    ],
  ]),
  tagUrl: (name) => `https://rookery.example/tags/${encodeURIComponent(name)}`,
  localDomain: "rookery.example",
};

const render = (text: string) => renderPlainText(text, options);

describe("renderPlainText: paragraphs and escaping", () => {
  test("wraps text in a paragraph", () => {
    assert.equal(render("text"), "<p>text</p>");
  });

  test("turns single line breaks into <br /> and blank lines into paragraphs", () => {
    assert.equal(render("line\nfeed"), "<p>line<br />feed</p>");
    assert.equal(render("one\n\ntwo\nthree\n\n\n\nfour"), "<p>one</p><p>two<br />three</p><p>four</p>");
  });

  test("normalises CRLF and CR, and strips surrounding white space", () => {
    assert.equal(
      render("  first line\r\nsecond\r\n\r\n\r\nthird \rfourth  \n"),
      "<p>first line<br />second</p><p>third <br />fourth</p>",
    );
  });

  test("renders blank text as nothing", () => {
    assert.equal(render(""), "");
    assert.equal(render(" \n\t\u3000"), "");
  });

  test("escapes HTML", () => {
    assert.equal(
      render('<script>alert("Hello")</script>'),
      "<p>&lt;script&gt;alert(&quot;Hello&quot;)&lt;/script&gt;</p>",
    );
    assert.equal(
      render(`<img src="javascript:alert('XSS');">`),
      "<p>&lt;img src=&quot;javascript:alert(&#39;XSS&#39;);&quot;&gt;</p>",
    );
    assert.equal(render("Tom & Jerry <3 &amp;"), "<p>Tom &amp; Jerry &lt;3 &amp;amp;</p>");
  });
});

describe("renderPlainText: links", () => {
  test("links a short URL without an ellipsis", () => {
    assert.equal(
      render("http://google.com"),
      '<p><a href="http://google.com" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">http://</span><span class="">google.com</span><span class="invisible"></span></a></p>',
    );
  });

  test("hides https://www. and shortens the rest after 30 characters", () => {
    assert.equal(
      render(
        "https://www.theguardian.com/money/2019/dec/07/i-lost-my-193000-inheritance-with-one-wrong-digit-on-my-sort-code",
      ),
      '<p><a href="https://www.theguardian.com/money/2019/dec/07/i-lost-my-193000-inheritance-with-one-wrong-digit-on-my-sort-code" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">https://www.</span><span class="ellipsis">theguardian.com/money/2019/dec</span>' +
        '<span class="invisible">/07/i-lost-my-193000-inheritance-with-one-wrong-digit-on-my-sort-code</span></a></p>',
    );
  });

  test("shortens 32 characters but shows 31 whole, rather than hide one behind the ellipsis", () => {
    assert.equal(
      render("lorem https://prepitaph.org/wip/web-dovespair/ ipsum"),
      '<p>lorem <a href="https://prepitaph.org/wip/web-dovespair/" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">https://</span><span class="ellipsis">prepitaph.org/wip/web-dovespai</span>' +
        '<span class="invisible">r/</span></a> ipsum</p>',
    );
    assert.equal(
      render("lorem https://prepitaph.org/wip/web-devspair/ ipsum"),
      '<p>lorem <a href="https://prepitaph.org/wip/web-devspair/" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">https://</span><span class="">prepitaph.org/wip/web-devspair/</span>' +
        '<span class="invisible"></span></a> ipsum</p>',
    );
  });

  test("leaves the parentheses around a URL out of it", () => {
    assert.equal(
      render("(see http://google.com/)"),
      '<p>(see <a href="http://google.com/" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">http://</span><span class="">google.com/</span><span class="invisible"></span></a>)</p>',
    );
  });

  test("keeps balanced parentheses that belong to the URL", () => {
    assert.equal(
      render("https://en.wikipedia.org/wiki/Diaspora_(software)"),
      '<p><a href="https://en.wikipedia.org/wiki/Diaspora_(software)" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">https://</span><span class="ellipsis">en.wikipedia.org/wiki/Diaspora</span>' +
        '<span class="invisible">_(software)</span></a></p>',
    );
  });

  test("keeps query and fragment but not the punctuation after them", () => {
    assert.equal(
      render("Visit https://example.com/path?q=1&r=2#anchor, now!"),
      '<p>Visit <a href="https://example.com/path?q=1&amp;r=2#anchor" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">https://</span><span class="">example.com/path?q=1&amp;r=2#anchor</span>' +
        '<span class="invisible"></span></a>, now!</p>',
    );
    assert.equal(
      render("https://example.com:8080/a?b=c#frag."),
      '<p><a href="https://example.com:8080/a?b=c#frag" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">https://</span><span class="">example.com:8080/a?b=c#frag</span>' +
        '<span class="invisible"></span></a>.</p>',
    );
  });

  test("stops before trailing periods, exclamation marks, quotes and angle brackets", () => {
    const google = (after: string) =>
      '<p><a href="http://www.google.com" target="_blank" rel="nofollow noopener" translate="no">' +
      `<span class="invisible">http://www.</span><span class="">google.com</span><span class="invisible"></span></a>${after}</p>`;
    assert.equal(render("http://www.google.com."), google("."));
    assert.equal(render("http://www.google.com!"), google("!"));
    assert.equal(render("http://www.google.com'"), google("&#39;"));
    assert.equal(render("http://www.google.com>"), google("&gt;"));
    assert.equal(render('"http://www.google.com"'), `<p>&quot;${google("&quot;").slice(3)}`);
  });

  test("links Unicode paths and internationalised domains", () => {
    assert.equal(
      render("https://ja.wikipedia.org/wiki/日本"),
      '<p><a href="https://ja.wikipedia.org/wiki/日本" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">https://</span><span class="">ja.wikipedia.org/wiki/日本</span><span class="invisible"></span></a></p>',
    );
    assert.equal(
      render("https://nic.みんな/"),
      '<p><a href="https://nic.みんな/" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">https://</span><span class="">nic.みんな/</span><span class="invisible"></span></a></p>',
    );
  });

  test("ends a URL at a full-width space and before Japanese quotation marks", () => {
    assert.equal(
      render("https://example.com/\u3000abc123"),
      '<p><a href="https://example.com/" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">https://</span><span class="">example.com/</span><span class="invisible"></span></a>\u3000abc123</p>',
    );
    assert.equal(
      render("「https://example.org/」"),
      '<p>「<a href="https://example.org/" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">https://</span><span class="">example.org/</span><span class="invisible"></span></a>」</p>',
    );
  });

  test("never lets HTML after a URL into it", () => {
    assert.equal(
      render("http://example.com/b<del>b</del>"),
      '<p><a href="http://example.com/b" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">http://</span><span class="">example.com/b</span><span class="invisible"></span></a>' +
        "&lt;del&gt;b&lt;/del&gt;</p>",
    );
  });

  test("links xmpp: and magnet: URIs and the other schemes Mastodon links", () => {
    assert.equal(
      render("please join xmpp:muc@instance.com?join right now"),
      '<p>please join <a href="xmpp:muc@instance.com?join" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">xmpp:</span><span class="">muc@instance.com?join</span><span class="invisible"></span></a> right now</p>',
    );
    assert.equal(
      render("magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a"),
      '<p><a href="magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible"></span><span class="ellipsis">magnet:?xt=urn:btih:c12fe1c06b</span>' +
        '<span class="invisible">ba254a9dc9f519b335aa7c1367a88a</span></a></p>',
    );
    assert.equal(
      render("gemini://geminiprotocol.net/"),
      '<p><a href="gemini://geminiprotocol.net/" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible"></span><span class="">gemini://geminiprotocol.net/</span><span class="invisible"></span></a></p>',
    );
  });

  test("does not link what Mastodon does not", () => {
    assert.equal(render("example.com and www.example.com"), "<p>example.com and www.example.com</p>");
    assert.equal(render("http://localhost:3000/x"), "<p>http://localhost:3000/x</p>");
    assert.equal(render("http://example.invalidtld/"), "<p>http://example.invalidtld/</p>");
    assert.equal(render("javascript:alert(1)"), "<p>javascript:alert(1)</p>");
    assert.equal(render("http://www\\.google\\.com"), "<p>http://www\\.google\\.com</p>");
  });
});

describe("renderPlainText: mentions", () => {
  test("links resolved mentions like Mastodon's own statuses", () => {
    assert.equal(
      render("@trwnh@mastodon.social sup!"),
      '<p><span class="h-card" translate="no"><a href="https://mastodon.social/@trwnh" class="u-url mention">@<span>trwnh</span></a></span> sup!</p>',
    );
    assert.equal(
      render("hi @alice"),
      '<p>hi <span class="h-card" translate="no"><a href="https://rookery.example/@alice" class="u-url mention">@<span>alice</span></a></span></p>',
    );
  });

  test("resolves a mention of this server's domain like a local one", () => {
    assert.equal(
      render("@alice@Rookery.Example"),
      '<p><span class="h-card" translate="no"><a href="https://rookery.example/@alice" class="u-url mention">@<span>alice</span></a></span></p>',
    );
  });

  test("leaves unresolved mentions, e-mail addresses and accented names as text", () => {
    assert.equal(render("@carol@else.where and @dave"), "<p>@carol@else.where and @dave</p>");
    assert.equal(render("mail alice@example.com"), "<p>mail alice@example.com</p>");
    assert.equal(render("@alicé"), "<p>@alicé</p>");
  });

  test("shows the domain of both when two mentioned accounts share a username", () => {
    const namesakes: RenderOptions = {
      ...options,
      mentions: new Map([
        ["bob", { url: "https://rookery.example/@bob", username: "bob", acct: "bob" }],
        ["bob@remote.example", { url: "https://remote.example/@bob", username: "bob", acct: "bob@remote.example" }],
      ]),
    };
    assert.equal(
      renderPlainText("@bob @bob@remote.example", namesakes),
      '<p><span class="h-card" translate="no"><a href="https://rookery.example/@bob" class="u-url mention">@<span>bob</span></a></span> ' +
        '<span class="h-card" translate="no"><a href="https://remote.example/@bob" class="u-url mention">@<span>bob@remote.example</span></a></span></p>',
    );
  });

  test("keeps an @ inside a URL part of the URL", () => {
    assert.equal(
      render("https://mastodon.social/@Gargron"),
      '<p><a href="https://mastodon.social/@Gargron" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">https://</span><span class="">mastodon.social/@Gargron</span><span class="invisible"></span></a></p>',
    );
  });
});

describe("renderPlainText: hashtags", () => {
  test("links hashtags to this server's tag pages", () => {
    assert.equal(
      render("#hashtag"),
      '<p><a href="https://rookery.example/tags/hashtag" class="mention hashtag" rel="tag">#<span>hashtag</span></a></p>',
    );
    assert.equal(
      render("#hashtagタグ"),
      '<p><a href="https://rookery.example/tags/hashtag%E3%82%BF%E3%82%B0" class="mention hashtag" rel="tag">#<span>hashtagタグ</span></a></p>',
    );
  });

  test("accepts the full-width sign and middle dots, and writes the tag as typed", () => {
    assert.equal(
      render("＃ｔａｇ #a·b"),
      '<p><a href="https://rookery.example/tags/%EF%BD%94%EF%BD%81%EF%BD%87" class="mention hashtag" rel="tag">#<span>ｔａｇ</span></a> ' +
        '<a href="https://rookery.example/tags/a%C2%B7b" class="mention hashtag" rel="tag">#<span>a·b</span></a></p>',
    );
  });

  test("starts a tag only at the start or after white space, including a no-break space", () => {
    assert.equal(
      render("(#paren) a\u00a0#nbsp"),
      '<p>(#paren) a\u00a0<a href="https://rookery.example/tags/nbsp" class="mention hashtag" rel="tag">#<span>nbsp</span></a></p>',
    );
  });

  test("ignores all-digit tags, tags inside words and URL fragments", () => {
    assert.equal(render("#123 a#b"), "<p>#123 a#b</p>");
    assert.equal(
      render("https://example.com/page#section"),
      '<p><a href="https://example.com/page#section" target="_blank" rel="nofollow noopener" translate="no">' +
        '<span class="invisible">https://</span><span class="">example.com/page#section</span><span class="invisible"></span></a></p>',
    );
  });

  test("ends a tag before a glued-on scheme", () => {
    assert.equal(
      render("#foohttps://x.org"),
      '<p><a href="https://rookery.example/tags/foo" class="mention hashtag" rel="tag">#<span>foo</span></a>https://x.org</p>',
    );
  });
});

describe("renderProfileField", () => {
  test("links with rel=me, as Mastodon's profile fields", () => {
    assert.equal(
      renderProfileField("https://joinmastodon.org", options),
      '<a href="https://joinmastodon.org" target="_blank" rel="nofollow noopener me" translate="no">' +
        '<span class="invisible">https://</span><span class="">joinmastodon.org</span><span class="invisible"></span></a>',
    );
  });

  test("shows mentions with their domain and tags, without paragraphs", () => {
    assert.equal(
      renderProfileField(" @bob@remote.example & @alice #Rookery ", options),
      '<span class="h-card" translate="no"><a href="https://remote.example/@bob" class="u-url mention">@<span>bob@remote.example</span></a></span> &amp; ' +
        '<span class="h-card" translate="no"><a href="https://rookery.example/@alice" class="u-url mention">@<span>alice</span></a></span> ' +
        '<a href="https://rookery.example/tags/Rookery" class="mention hashtag" rel="tag">#<span>Rookery</span></a>',
    );
    assert.equal(renderProfileField("  ", options), "");
  });
});

describe("extraction", () => {
  test("extractMentions: unique accounts in order, as written", () => {
    assert.deepEqual(
      extractMentions("@alice @bob@remote.example hi @ALICE, @Bob@Remote.Example and alice@example.com"),
      [
        { username: "alice", domain: null, raw: "@alice" },
        { username: "bob", domain: "remote.example", raw: "@bob@remote.example" },
      ],
    );
  });

  test("extractMentions: this server's domain counts as local when given", () => {
    assert.deepEqual(extractMentions("@carol@rookery.example @carol", "rookery.example"), [
      { username: "carol", domain: null, raw: "@carol@rookery.example" },
    ]);
    assert.deepEqual(extractMentions("@carol@rookery.example"), [
      { username: "carol", domain: "rookery.example", raw: "@carol@rookery.example" },
    ]);
  });

  test("extractMentions: trailing punctuation is not part of the domain", () => {
    assert.deepEqual(extractMentions("cc @dan@social.example."), [
      { username: "dan", domain: "social.example", raw: "@dan@social.example" },
    ]);
    assert.deepEqual(extractMentions("https://social.example/@dan x=@eve"), []);
  });

  test("mentionKey: the key RenderOptions.mentions uses", () => {
    assert.equal(mentionKey("Alice", null), "alice");
    assert.equal(mentionKey("Bob", "Remote.Example"), "bob@remote.example");
  });

  test("extractHashtags: names as first written, one per normalized form", () => {
    assert.deepEqual(extractHashtags("#Café #cafe #CAFE ＃ｔａｇ #tag #a·b #123 #Straße #strasse"), [
      "Café",
      "ｔａｇ",
      "a·b",
      "Straße",
      "strasse",
    ]);
  });

  test("extractUrls: the URLs that become links, once each", () => {
    assert.deepEqual(
      extractUrls(
        "a https://example.com/x, (https://example.org/y) https://example.com/x example.net xmpp:me@example.com",
      ),
      ["https://example.com/x", "https://example.org/y", "xmpp:me@example.com"],
    );
    assert.deepEqual(extractUrls("http://www\\.google\\.com"), []);
    assert.deepEqual(extractUrls("no links here: example.com"), []);
  });

  test("extractUrls: a link glued to a scheme-less URL is still found", () => {
    assert.deepEqual(extractUrls("example.com?q=https://a.org"), ["https://a.org"]);
  });
});

describe("normalizeHashtag", () => {
  test("folds case and Latin accents, so #Café and #cafe are one tag", () => {
    assert.equal(normalizeHashtag("Café"), "cafe");
    assert.equal(normalizeHashtag("cafe"), "cafe");
    assert.equal(normalizeHashtag("Cafe\u0301"), "cafe");
    assert.equal(normalizeHashtag("ŁÓDŹ"), "lodz");
  });

  test("folds full-width letters and drops a leading #", () => {
    assert.equal(normalizeHashtag("ｔａｇ"), "tag");
    assert.equal(normalizeHashtag("＃ＴＡＧ"), "tag");
    assert.equal(normalizeHashtag("#Rookery"), "rookery");
  });

  test("keeps separators, letters of other scripts and what ASCII folding leaves alone", () => {
    assert.equal(normalizeHashtag("a·b_c"), "a·b_c");
    assert.equal(normalizeHashtag("東京タワー"), "東京タワー");
    assert.equal(normalizeHashtag("Straße"), "straße");
    assert.equal(normalizeHashtag("Œuvre"), "œuvre");
  });

  test("removes punctuation and symbols", () => {
    assert.equal(normalizeHashtag("rock'n'roll!"), "rocknroll");
    assert.equal(normalizeHashtag("tag🦆"), "tag");
  });

  test("isValidHashtag: Mastodon's rule for a tag name", () => {
    assert.equal(isValidHashtag("rookery"), true);
    assert.equal(isValidHashtag("a·b"), true);
    assert.equal(isValidHashtag("日本"), true);
    assert.equal(isValidHashtag("123"), false);
    assert.equal(isValidHashtag("with space"), false);
    assert.equal(isValidHashtag("#tag"), false);
    assert.equal(isValidHashtag(""), false);
  });
});

describe("countCharacters", () => {
  test("counts plain text in characters, without surrounding white space", () => {
    assert.equal(countCharacters("hello", 23), 5);
    assert.equal(countCharacters("  hello\n", 23), 5);
    assert.equal(countCharacters(" \n ", 23), 0);
  });

  test("counts every URL as charsPerUrl", () => {
    assert.equal(countCharacters("Look: https://example.com/a/very/long/path/that/goes/on/and/on", 23), 29);
    assert.equal(countCharacters("https://t.example", 23), 17);
    assert.equal(countCharacters("https://example.com https://example.org", 23), 47);
    assert.equal(countCharacters("https://example.com", 30), 30);
  });

  test("counts text that is not a link as written", () => {
    assert.equal(countCharacters("example.com", 23), 11);
    assert.equal(countCharacters("alice@example.com", 23), 17);
  });

  test("counts a remote mention as its @username part", () => {
    assert.equal(countCharacters("@alice@example.com hi", 23), 9);
    assert.equal(countCharacters("@alice hi", 23), 9);
  });

  test("counts emoji sequences and combined letters as one character each", () => {
    assert.equal(countCharacters("👩‍👩‍👧", 23), 1);
    assert.equal(countCharacters("🇫🇷🇩🇪", 23), 2);
    assert.equal(countCharacters("e\u0301", 23), 1);
    assert.equal(countCharacters("👍🏽 ok", 23), 4);
    assert.equal(countCharacters("𝄞", 23), 1);
    assert.equal(countGraphemes("👨‍💻 and 🏳️‍🌈"), 7);
  });
});

describe("sanitizeRemoteHtml", () => {
  test("keeps Mastodon's own markup, with links opening safely in a new tab", () => {
    assert.equal(
      sanitizeRemoteHtml(
        '<p><span class="h-card" translate="no"><a href="https://mastodon.social/@trwnh" class="u-url mention">@<span>trwnh</span></a></span> sup!</p>',
      ),
      '<p><span class="h-card" translate="no"><a href="https://mastodon.social/@trwnh" class="u-url mention" rel="nofollow noopener" target="_blank">@<span>trwnh</span></a></span> sup!</p>',
    );
    assert.equal(
      sanitizeRemoteHtml(
        '<p><a href="https://www.theguardian.com/money/2019/dec/07/x" rel="nofollow noopener noreferrer" target="_blank"><span class="invisible">https://www.</span><span class="ellipsis">theguardian.com/money/2019/dec</span><span class="invisible">/07/x</span></a></p>',
      ),
      '<p><a href="https://www.theguardian.com/money/2019/dec/07/x" rel="nofollow noopener" target="_blank"><span class="invisible">https://www.</span><span class="ellipsis">theguardian.com/money/2019/dec</span><span class="invisible">/07/x</span></a></p>',
    );
    assert.equal(
      sanitizeRemoteHtml(
        '<p><a href="https://mspsocial.net/tags/cats" class="mention hashtag" rel="tag">#<span>cats</span></a></p>',
      ),
      '<p><a href="https://mspsocial.net/tags/cats" class="mention hashtag" rel="nofollow noopener" target="_blank">#<span>cats</span></a></p>',
    );
  });

  test("removes scripts, styles, event handlers, style attributes and images", () => {
    assert.equal(
      sanitizeRemoteHtml(
        '<p onclick="steal()" style="color:red">Hi<script>alert(1)</script><style>p{display:none}</style></p><img src="https://evil.example/x.png" onerror="alert(1)"><iframe src="https://evil.example">frame</iframe>',
      ),
      "<p>Hi</p>",
    );
    assert.equal(
      sanitizeRemoteHtml(
        '<svg onload="alert(1)"><text>svg</text></svg><form action="https://evil"><input name="q"><button>Go</button></form>',
      ),
      "Go",
    );
  });

  test("unlinks javascript:, data: and relative links, keeping their text", () => {
    assert.equal(
      sanitizeRemoteHtml(
        '<a href="javascript:alert(1)">click</a> <a href=" JaVaScRiPt:alert(1)">again</a> <a href="java&#x73;cript:alert(1)">encoded</a> <a href="data:text/html;base64,PHNjcmlwdD4=">data</a> <a href="/local">relative</a> <a>none</a>',
      ),
      "click again encoded data relative none",
    );
  });

  test('keeps only Mastodon\'s classes and translate="no"', () => {
    assert.equal(
      sanitizeRemoteHtml(
        '<span class="h-card invisible tracking-pixel" translate="yes" data-x="1">x</span><a href="gemini://example.org" title="t" translate="no" target="_self">gem</a>',
      ),
      '<span class="h-card invisible">x</span><a href="gemini://example.org" translate="no" rel="nofollow noopener" target="_blank">gem</a>',
    );
  });

  test("keeps Mastodon's text and list elements, turns headings into bold paragraphs and spaces out other blocks", () => {
    assert.equal(
      sanitizeRemoteHtml(
        '<blockquote><p><b>b</b> <i>i</i> <del>d</del> <code>c &lt; d</code></p></blockquote><ol start="3" reversed><li value="2">x</li></ol>',
      ),
      '<blockquote><p><b>b</b> <i>i</i> <del>d</del> <code>c &lt; d</code></p></blockquote><ol start="3" reversed><li value="2">x</li></ol>',
    );
    assert.equal(
      sanitizeRemoteHtml("<h2>Title</h2><div>one</div><div>two</div>"),
      "<p><strong>Title</strong></p> one  two ",
    );
  });
});

describe("htmlToPlainText", () => {
  test("turns paragraphs into blank lines and <br> into line breaks", () => {
    assert.equal(
      htmlToPlainText("<p>one<br>two<br />three</p><p>four</p>\n<p>five</p>"),
      "one\ntwo\nthree\n\nfour\n\nfive",
    );
  });

  test("decodes entities and keeps the hidden parts of shortened links", () => {
    assert.equal(
      htmlToPlainText(
        '<p>&quot;Tom &amp; Jerry&quot; &lt;3 &#39;s&nbsp;<a href="https://www.theguardian.com/money/2019/dec/07/x" rel="nofollow noopener" target="_blank"><span class="invisible">https://www.</span><span class="ellipsis">theguardian.com/money/2019/dec</span><span class="invisible">/07/x</span></a></p>',
      ),
      '"Tom & Jerry" <3 \'s\u00a0https://www.theguardian.com/money/2019/dec/07/x',
    );
  });

  test("reads mentions and hashtags as their text", () => {
    assert.equal(
      htmlToPlainText(
        '<p><span class="h-card" translate="no"><a href="https://mastodon.social/@trwnh" class="u-url mention">@<span>trwnh</span></a></span> sup! <a href="https://mspsocial.net/tags/cats" class="mention hashtag" rel="tag">#<span>cats</span></a></p>',
      ),
      "@trwnh sup! #cats",
    );
  });

  test("leaves out scripts and styles and collapses source white space", () => {
    assert.equal(
      htmlToPlainText("<p>a\n   b<script>alert(1)</script><style>p{}</style></p>\n\n  <p>  c  </p>"),
      "a b\n\nc",
    );
  });

  test("puts list items on their own lines and keeps preformatted text", () => {
    assert.equal(
      htmlToPlainText("<p>List:</p><ul><li>one</li><li>two</li></ul><pre>  x\n    y</pre>"),
      "List:\n\none\ntwo\n\n  x\n    y",
    );
  });
});

describe("detectLanguage", () => {
  test("detects English, French, German and Japanese", async () => {
    assert.equal(await detectLanguage("The weather is lovely today and I am going for a walk."), "en");
    assert.equal(await detectLanguage("Je vais au marché acheter du pain et du fromage."), "fr");
    assert.equal(await detectLanguage("Ich gehe heute Abend mit meinen Freunden ins Kino."), "de");
    assert.equal(await detectLanguage("今日はいい天気ですね。散歩に行きましょう。"), "ja");
  });

  test("ignores mentions, links and hashtags", async () => {
    assert.equal(
      await detectLanguage(
        "@bob@remote.example Thanks, I really appreciate your help with this! https://example.com #rookery",
      ),
      "en",
    );
  });

  test("returns null for text too short or with nothing left to read", async () => {
    assert.equal(await detectLanguage("ok"), null);
    assert.equal(await detectLanguage("Merci"), null);
    assert.equal(await detectLanguage("https://example.com/some/long/path/to/an/article"), null);
    assert.equal(await detectLanguage("@alice@example.com #tag https://example.org"), null);
    assert.equal(await detectLanguage(":blobcat: :blobfox:"), null);
    assert.equal(await detectLanguage(""), null);
  });
});
