// pdfkit writes a value that is one of its references as the reference's toString (PDFObject.convert). A value
// that is the same in every document — a font's widths, the signature's empty contents — is formatted once and
// handed to pdfkit that way, instead of being converted number by number (or byte by byte) in each document.

/** An object pdfkit writes as `text`, exactly. `doc`: any pdfkit document (its catalogue is a reference). */
export function preformatted(doc: object, text: string): object {
  const reference = Object.getPrototypeOf(Object.getPrototypeOf((doc as { _root: object })._root) as object) as object;
  return Object.create(reference, { toString: { value: () => text } }) as object;
}
