// The titles crediting and cancelling give their documents in the API ("Credit note for RE-1:
// reason", "Cancellation of RE-1"), written and read in this one place: the documents title them
// in their own language with their own number, and need to recognise these and take the reason.

export const creditNoteTitle = (originalNumber: string, reason: string | null) => `Credit note for ${originalNumber}${reason ? `: ${reason}` : ''}`;

export const cancellationTitle = (originalNumber: string) => `Cancellation of ${originalNumber}`;

/** The reason in a title written above (null without one); undefined for any other title. */
export function reversalTitleReason(kind: 'credit_note' | 'cancellation', title: string, originalNumber: string): string | null | undefined {
  if (kind === 'cancellation') return title === cancellationTitle(originalNumber) ? null : undefined;
  const bare = creditNoteTitle(originalNumber, null);
  if (title === bare) return null;
  return title.startsWith(`${bare}: `) ? title.slice(bare.length + 2).trim() : undefined;
}
