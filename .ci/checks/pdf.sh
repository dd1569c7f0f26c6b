#!/usr/bin/env bash
# PDF check with Debian's poppler-utils: renders the sample documents, then
#   pdfsig   — every origin/copy has a valid signature; one flipped byte breaks it; drafts are unsigned;
#   pdftotext — the Hebrew reads in logical order, amounts and Latin are not reversed.
# Prints PASS/FAIL lines; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
for tool in pdfsig pdftotext; do
  command -v "$tool" >/dev/null 2>&1 || { echo "FAIL pdf: $tool missing (apt-get install poppler-utils)"; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failures=0
pass() { echo "PASS pdf: $1"; }
fail() { echo "FAIL pdf: $1"; failures=$((failures + 1)); }

npx tsx src/pdf/write-samples.ts "$out" >/dev/null 2>"$out/render.err" || { cat "$out/render.err"; echo "FAIL pdf: rendering the samples"; exit 1; }

# Text without the directional marks pdftotext adds around runs.
text() { pdftotext -enc UTF-8 -nopgbrk "$1" - | perl -CS -pe 's/[\x{200E}\x{200F}\x{202A}-\x{202E}\x{2066}-\x{2069}]//g'; }
contains() { grep -qF -- "$2" <<<"$1"; }

for f in "$out"/*-origin.pdf "$out"/*-copy.pdf; do
  name=$(basename "$f")
  if pdfsig "$f" 2>&1 | grep -q "Signature is Valid"; then pass "$name signature valid"; else fail "$name signature not valid"; pdfsig "$f"; fi
  t=$(text "$f")
  ok=1
  # A donation receipt (405) is a non-profit's, to a donor named by ID number.
  case "$name" in
    405-*) base=('עמותת שולחן פתוח' 'מסמך ממוחשב' 'ישראל ישראלי' 'office@cafe.example' '580123453' '030419816' '01/03/2026') ;;
    *) base=('קפה השכונה בע"מ' 'מסמך ממוחשב' 'Alpha Tech' 'office@cafe.example' '516179157' '01/03/2026') ;;
  esac
  for phrase in "${base[@]}"; do
    contains "$t" "$phrase" || { ok=0; echo "  missing: $phrase"; }
  done
  case "$name" in
    *-origin.pdf) contains "$t" 'מקור' || { ok=0; echo '  missing: מקור'; } ;;
    *-copy.pdf) contains "$t" 'העתק' || { ok=0; echo '  missing: העתק'; } ;;
  esac
  case "$name" in
    400-*) for phrase in 'קבלה' '1,234.56' 'פייבוקס' 'אפליקציית תשלום'; do contains "$t" "$phrase" || { ok=0; echo "  missing: $phrase"; }; done ;;
    405-*)
      for phrase in 'קבלה על תרומה' '1,234.56' 'פייבוקס' 'אישור לעניין סעיף' 'לפקודת מס הכנסה' '4512345' 'מספר דיווח למערכת התרומות' '2026000123456'; do
        contains "$t" "$phrase" || { ok=0; echo "  missing: $phrase"; }
      done ;;
    *) for phrase in 'סה"כ כולל מע"מ' '3,011.36' '459.36' 'מע"מ 18%' 'Croissant'; do contains "$t" "$phrase" || { ok=0; echo "  missing: $phrase"; }; done ;;
  esac
  # Reversed Hebrew would show up as the mirror image of the business name.
  if contains "$t" 'מ"עב הנוכשה הפק'; then ok=0; echo '  reversed Hebrew found'; fi
  if [ $ok = 1 ]; then pass "$name text in logical order"; else fail "$name text"; fi
done

# One flipped byte in the signed content (the middle of the byte range after the signature) breaks it.
f="$out/320-classic-origin.pdf"
cp "$f" "$out/tampered.pdf"
read -r _ _ c d < <(grep -a -o '/ByteRange \[[0-9 ]*\]' "$f" | head -1 | tr -d '[]/A-Za-z')
off=$((c + d / 2))
byte=$(dd if="$f" bs=1 skip=$off count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
printf "$(printf '\\%03o' $(((byte ^ 1) & 255)))" | dd of="$out/tampered.pdf" bs=1 seek=$off count=1 conv=notrunc 2>/dev/null
if pdfsig "$out/tampered.pdf" 2>&1 | grep -q "Signature is Valid"; then fail "tampered PDF still reports a valid signature"; else pass "one flipped byte invalidates the signature ($(pdfsig "$out/tampered.pdf" 2>&1 | grep -o 'Signature Validation: .*'))"; fi

# A draft preview is unsigned and says טיוטה.
d="$out/draft-classic.pdf"
if pdfsig "$d" 2>&1 | grep -q "Signature #1"; then fail "draft is signed"; else pass "draft is unsigned"; fi
if contains "$(text "$d")" 'טיוטה'; then pass "draft says טיוטה"; else fail "draft does not say טיוטה"; fi

# Every language sample is signed; English pages keep the Hebrew words the law names; sandbox pages say so.
for f in "$out"/languages/*.pdf; do
  name=languages/$(basename "$f")
  if pdfsig "$f" 2>&1 | grep -q "Signature is Valid"; then pass "$name signature valid"; else fail "$name signature not valid"; fi
  t=$(text "$f")
  ok=1
  case "$name" in
    *-en-ILS-*|*-en-USD-*|*-en-JPY-*|*-en-KWD-*)
      for phrase in 'No. 1001' 'מסמך ממוחשב' 'Computerised document'; do contains "$t" "$phrase" || { ok=0; echo "  missing: $phrase"; }; done ;;
  esac
  case "$name" in
    *-origin.pdf) contains "$t" 'מקור' || { ok=0; echo '  missing: מקור'; } ;;
  esac
  case "$name" in
    *-USD-*) for phrase in 'USD' '₪'; do contains "$t" "$phrase" || { ok=0; echo "  missing: $phrase"; }; done ;;
  esac
  case "$name" in
    */sandbox-*) { contains "$t" 'SANDBOX' || contains "$t" 'מסמך ניסיון'; } || { ok=0; echo '  missing: the sandbox mark'; } ;;
    *) if contains "$t" 'SANDBOX'; then ok=0; echo '  a live sample carries the sandbox mark'; fi ;;
  esac
  if [ $ok = 1 ]; then pass "$name says what it must"; else fail "$name text"; fi
done

[ "$failures" -eq 0 ]
