/** Drafts not saved for this long are gone (reads treat them as absent; DynamoDB TTL deletes them). */
export const draftRetentionDays = 90;

/** Serialised `stage`, `configuration` and `selections` together. */
export const maxDraftBytes = 64 * 1024;

/** Objects and arrays nested deeper than this are refused. */
export const maxDraftDepth = 16;
