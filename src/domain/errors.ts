// The one error type that crosses layers: a service throws it, the HTTP layer renders it as
// Mastodon's `{"error": "…"}` with the status code Mastodon uses.

export class ApiError extends Error {
  readonly status: 400 | 401 | 403 | 404 | 409 | 410 | 413 | 422 | 429 | 500 | 501 | 503;
  readonly body: Record<string, unknown>;
  headers: Record<string, string> = {};

  constructor(status: ApiError["status"], error: string, extra: Record<string, unknown> = {}) {
    super(error);
    this.status = status;
    this.body = { error, ...extra };
  }

  withHeaders(headers: Record<string, string>): this {
    this.headers = { ...this.headers, ...headers };
    return this;
  }
}

export const notFound = () => new ApiError(404, "Record not found");
export const forbidden = (message = "This action is not allowed") => new ApiError(403, message);
export const unprocessable = (message: string, extra?: Record<string, unknown>) => new ApiError(422, message, extra);
export const badRequest = (message: string) => new ApiError(400, message);

export interface FieldError {
  error: string;
  description: string;
}

/** The errors Rails attaches to an attribute, with the codes Mastodon's API turns them into. */
export const fieldError = {
  blank: { error: "ERR_BLANK", description: "can't be blank" },
  taken: { error: "ERR_TAKEN", description: "has already been taken" },
  accepted: { error: "ERR_ACCEPTED", description: "must be accepted" },
  inclusion: { error: "ERR_INCLUSION", description: "is not included in the list" },
  reserved: { error: "ERR_RESERVED", description: "is reserved" },
  invalid: (description = "is invalid"): FieldError => ({ error: "ERR_INVALID", description }),
  tooLong: (max: number): FieldError => ({
    error: "ERR_TOO_LONG",
    description: `is too long (maximum is ${max} characters)`,
  }),
  tooShort: (min: number): FieldError => ({
    error: "ERR_TOO_SHORT",
    description: `is too short (minimum is ${min} characters)`,
  }),
} satisfies Record<string, FieldError | ((...args: never[]) => FieldError)>;

/**
 * Mastodon's 422 for invalid records: a sentence for people, and per-attribute `details` with
 * machine-readable codes (`ERR_TAKEN`, `ERR_BLANK`…) for apps. The sentence names attributes as
 * Mastodon's locale file does (`labels`, e.g. `email` → "E-mail address"); others are humanized.
 */
export function validationFailed(details: Record<string, FieldError[]>, labels: Record<string, string> = {}): ApiError {
  const sentences = Object.entries(details).flatMap(([attribute, errors]) => {
    const name = labels[attribute] ?? attribute.charAt(0).toUpperCase() + attribute.slice(1).replaceAll("_", " ");
    return errors.map((e) => `${name} ${e.description}`);
  });
  return new ApiError(422, `Validation failed: ${sentences.join(", ")}`, { details });
}
