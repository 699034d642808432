// The words of the web pages in English, the reference every other language follows.
import { html } from "hono/html";
import { INACTIVE_MESSAGES } from "../../domain/user_state.ts";
import type { Html } from "../layout.ts";
import { accountEn } from "./account/en.ts";
import { adminEn } from "./admin/en.ts";
import { portabilityEn } from "./portability/en.ts";

export const en = {
  signIn: {
    title: "Sign in",
    email: "Email address",
    password: "Password",
    submit: "Sign in",
    invalid: "Invalid email address or password.",
    expired: "This form has expired. Please try again.",
    throttled: "Too many attempts. Please try again later.",
  },
  consent: {
    title: "Authorize",
    heading: (app: string) => `Authorize ${app}?`,
    lead: (app: Html, user: Html): Html => html`${app} wants to use your account ${user}. It will be able to:`,
    authorize: "Authorize",
    deny: "Deny",
    notYou: "Not you?",
  },
  code: {
    title: "Authorization code",
    lead: (app: string) => `Copy this code and paste it into ${app}:`,
  },
  formPost: { title: "Continue", submit: "Continue" },
  signOut: { button: "Sign out", title: "Signed out", done: "You have signed out." },
  blocked: {
    title: "You can't authorize apps yet",
    ...INACTIVE_MESSAGES,
  },
  error: {
    title: "An error has occurred",
    signInFirst: "You need to sign in first.",
    expired: "This form has expired. Go back and try again.",
    denied: "You denied the authorization.",
  },
  /** What each scope lets an app do, in plain words. */
  scopes: {
    read: "Read all your account's data",
    write: "Change all your account's data",
    follow: "Follow, block and mute accounts (older apps)",
    push: "Receive your push notifications",
    profile: "Read only your profile information",
    "admin:read": "Read all data on the server",
    "admin:write": "Moderate and change data on the server",
    "read:search": "Search on your behalf",
    "write:media": "Upload media files",
    "write:reports": "Report accounts and posts",
  },
  granular: {
    read: (what: string) => `See your ${what}`,
    write: (what: string) => `Change your ${what}`,
    "admin:read": (what: string) => `See the server's ${what}`,
    "admin:write": (what: string) => `Moderate the server's ${what}`,
  },
  /** The things granular scopes are about (`read:statuses` → statuses). */
  things: {
    accounts: "account information",
    blocks: "blocks",
    bookmarks: "bookmarks",
    collections: "collections",
    conversations: "conversations",
    favourites: "favourites",
    filters: "filters",
    follows: "follows",
    lists: "lists",
    mutes: "mutes",
    notifications: "notifications",
    reports: "reports",
    statuses: "posts",
    canonical_email_blocks: "blocked e-mail addresses",
    domain_allows: "allowed domains",
    domain_blocks: "blocked domains",
    email_domain_blocks: "blocked e-mail domains",
    ip_blocks: "blocked IP addresses",
  },
  admin: adminEn,
  account: accountEn,
  portability: portabilityEn,
  /** The public profile and post pages. */
  publicPages: {
    posts: "Posts",
    following: "Following",
    followers: "Followers",
    joined: "Joined",
    pinned: "Pinned",
    boosted: (who: string) => `${who} boosted`,
    quoteUnavailable: "The quoted post is not available.",
    older: "Older posts",
    newer: "Newer posts",
    noPosts: "No public posts yet.",
    sensitive: "Sensitive media",
    votes: (n: number) => (n === 1 ? "1 vote" : `${n} votes`),
    pollClosed: "Closed",
    edited: "Edited",
    replies: "Replies",
    boosts: "Boosts",
    favourites: "Favourites",
    notFound: "This page does not exist.",
    notFoundTitle: "Not found",
    gone: "This account has been suspended.",
    goneTitle: "Suspended",
    membersOnly: "This server shows its profiles and posts to its members only, in their apps.",
    membersOnlyTitle: "Members only",
    contentWarning: (text: string) => `Content warning: ${text}`,
    tagged: (tag: string) => `Public posts with #${tag} known to this server, newest first.`,
    latest: "Latest posts",
    latestLead: "Public posts from this server, newest first.",
  },
  /** The home page (`/`) and the about page. */
  home: {
    title: "Welcome",
    about: "About this server",
    rules: "Rules",
    contact: "Contact",
    privacy: "Privacy policy",
    signIn: "Sign in",
    signUp: "Sign up",
    signedInAs: (who: Html) => html`You are signed in as ${who}.`,
    nextTitle: "What next",
    useApp: (address: Html) =>
      html`This server has no web app of its own for reading and posting: use a Mastodon app. Give it the address ${address}, then sign in with your email address and password.`,
    apps: "Tested with Rookery: toot (in a terminal) and Mastodon.py (for programs). Web apps such as Phanpy and Elk connect to servers over https only.",
    search:
      "Search finds the posts of people who let it (“indexable”, off for new accounts until they turn it on, in an app that offers the setting), your own posts, and those you interacted with.",
    profile: "Your public profile",
    admin: "Web admin",
  },
};

export type Messages = typeof en;
