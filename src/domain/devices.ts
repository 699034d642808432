// A device in words, from its User-Agent header: "Firefox on Linux". The sessions page shows it,
// and a sign-in from a device not seen before is told to the user by mail.
import UAParser from "ua-parser-js";

export function describeDevice(userAgent: string | null | undefined): string {
  if (!userAgent) return "Unknown device";
  const { browser, os } = new UAParser(userAgent.slice(0, 512)).getResult();
  if (browser.name && os.name) return `${browser.name} on ${os.name}`;
  return browser.name ?? os.name ?? "Unknown device";
}
