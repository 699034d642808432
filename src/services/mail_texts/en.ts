// The mails about a person's own account, in English: the reference every other language follows.
// Each is a subject and a body; `site` is the server's title.

export const mailEn = {
  passwordReset: {
    subject: (site: string) => `Reset your password on ${site}`,
    text: (site: string, link: string, hours: number) =>
      `Someone asked to reset the password of your account on ${site}.\n\nTo choose a new password, open this link within ${hours} hours (it works once):\n${link}\n\nIf it was not you, ignore this mail: your password stays as it is.\n`,
  },
  emailChangeConfirm: {
    subject: (site: string) => `Confirm your new email address on ${site}`,
    text: (site: string, link: string) =>
      `You asked to use this address for your account on ${site}.\n\nTo confirm it, open:\n${link}\n\nUntil then, you keep signing in with your old address. If it was not you, ignore this mail.\n`,
  },
  emailChanged: {
    subject: (site: string) => `Your email address on ${site} is being changed`,
    text: (site: string, newEmail: string) =>
      `The email address of your account on ${site} is being changed to ${newEmail}. It changes once the new address is confirmed.\n\nIf it was not you, change your password at once and contact the server's staff.\n`,
  },
  twoFactorEnabled: {
    subject: (site: string) => `Two-factor sign-in is on for ${site}`,
    text: (site: string) =>
      `Two-factor sign-in is now on for your account on ${site}: signing in asks for a code from your authenticator app.\n\nIf it was not you, contact the server's staff.\n`,
  },
  twoFactorDisabled: {
    subject: (site: string) => `Two-factor sign-in is off for ${site}`,
    text: (site: string) =>
      `Two-factor sign-in is now off for your account on ${site}: the password alone signs in again.\n\nIf it was not you, change your password at once and contact the server's staff.\n`,
  },
  newSignIn: {
    subject: (site: string) => `A new sign-in to your account on ${site}`,
    text: (site: string, when: string, ip: string, device: string) =>
      `Your account on ${site} was signed in to from an address or device not seen before:\n\nTime: ${when}\nAddress: ${ip}\nDevice: ${device}\n\nIf it was you, there is nothing to do. If not, change your password at once and end the sessions you don't know in your account's settings.\n`,
  },
  confirmation: {
    subject: (site: string) => `Confirm your email address for ${site}`,
    text: (site: string, link: string) =>
      `Welcome to ${site}!\n\nTo confirm this email address, open:\n${link}\n\nIf you did not sign up, ignore this mail.\n`,
  },
  archiveReady: {
    subject: (_site: string) => "Your archive is ready for download",
    text: (site: string, user: string, link: string) =>
      `Hello ${user},\n\nThe archive of your account on ${site} is ready. Download it from:\n${link}\n`,
  },
  /** What the moderators did, by the action types of Mastodon's account warnings. */
  warning: {
    actions: {
      none: "You have received a warning",
      sensitive: "Your media will be marked as sensitive from now on",
      disable: "Your account has been frozen",
      silence: "Your account has been limited",
      suspend: "Your account has been suspended",
    } as Record<string, string>,
    subject: (site: string, action: string) => `${action} (${site})`,
    text: (site: string, action: string, note: string) =>
      `${action} on ${site}.\n${note ? `\nNote from the moderators:\n${note}\n` : ""}`,
  },
};

export type MailTexts = typeof mailEn;
