#!/usr/bin/env bash
# Validates every *.xml in DIR as validate-einvoice.sh does one file: XML schema (xmllint), then the
# CEN EN16931 schematron (Saxon-HE), and for files named *.xrechnung.xml also the KoSIT XRechnung
# rules. Saxon runs once per syntax and rule set over all files (its directory mode), so a batch
# costs a few JVM starts instead of one or two per file.
# Prints  FILE<TAB>SOURCE<TAB>FLAG<TAB>RULE<TAB>LOCATION<TAB>MESSAGE  per failed assert or schema
# error, then  FILE<TAB>RESULT<TAB>VALID|INVALID  per file. Exit: 0 all valid, 1 some invalid, 2 setup.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
D="$HERE/einvoice"
SAXON_JAR="${SAXON_JAR:-/usr/share/java/Saxon-HE.jar}"
DIR="${1:-}"
[ -n "$DIR" ] && [ -d "$DIR" ] || { echo "usage: $0 DIR (validates DIR/*.xml)" >&2; exit 2; }
for t in xmllint xsltproc java; do command -v $t >/dev/null || { echo "missing $t" >&2; exit 2; }; done
[ -f "$SAXON_JAR" ] || { echo "missing Saxon jar $SAXON_JAR (apt-get install libsaxonhe-java)" >&2; exit 2; }

TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
declare -A BAD
for f in "$DIR"/*.xml; do
  [ -f "$f" ] || continue
  name=$(basename "$f")
  NS=$(xmllint --xpath 'namespace-uri(/*)' "$f" 2>/dev/null) || { printf '%s\tXML\tfatal\tWELLFORMED\t/\tnot well-formed XML\n' "$name"; BAD[$name]=1; continue; }
  case "$NS" in
    urn:oasis:names:specification:ubl:schema:xsd:Invoice-2) SYN=UBL; XSD="$D/ubl21/xsd/maindoc/UBL-Invoice-2.1.xsd" ;;
    urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2) SYN=UBL; XSD="$D/ubl21/xsd/maindoc/UBL-CreditNote-2.1.xsd" ;;
    urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100) SYN=CII; XSD="$D/cii-d16b/CrossIndustryInvoice_100pD16B.xsd" ;;
    *) printf '%s\tXML\tfatal\tNAMESPACE\t/\tunknown root namespace %s\n' "$name" "$NS"; BAD[$name]=1; continue ;;
  esac
  if ! xmllint --noout --schema "$XSD" "$f" 2>"$TMP/xsd.err"; then
    grep -v ' fails to validate$' "$TMP/xsd.err" | sed "s/^/$name\tXSD\tfatal\tXSD\t\t/"
    BAD[$name]=1
  fi
  mkdir -p "$TMP/in-$SYN-EN16931"; cp "$f" "$TMP/in-$SYN-EN16931/"
  case "$name" in *.xrechnung.xml) mkdir -p "$TMP/in-$SYN-XRECHNUNG"; cp "$f" "$TMP/in-$SYN-XRECHNUNG/" ;; esac
done

for SYN in CII UBL; do
  for RULES in EN16931 XRECHNUNG; do
    IN="$TMP/in-$SYN-$RULES"; [ -d "$IN" ] || continue
    if [ "$RULES" = EN16931 ]; then XSL="$D/en16931/$(echo $SYN | tr A-Z a-z)/xslt/EN16931-$SYN-validation.xslt"; else XSL="$D/xrechnung/XRechnung-$SYN-validation.xsl"; fi
    OUT="$TMP/out-$SYN-$RULES"; mkdir -p "$OUT"
    if ! java -cp "$SAXON_JAR" net.sf.saxon.Transform -s:"$IN" -xsl:"$XSL" -o:"$OUT" 2>"$TMP/saxon.err"; then
      echo "Saxon failed for $SYN $RULES:" >&2; head -20 "$TMP/saxon.err" >&2; exit 2
    fi
    for svrl in "$OUT"/*.xml; do
      name=$(basename "$svrl")
      xsltproc --stringparam label "$RULES" "$D/svrl-report.xsl" "$svrl" > "$TMP/report.txt"
      if awk -F'\t' '$2=="fatal"||$2=="error"{found=1} END{exit !found}' "$TMP/report.txt"; then BAD[$name]=1; fi
      awk -F'\t' '$2=="fatal"||$2=="error"' "$TMP/report.txt" | sed "s/^/$name\t/"
    done
  done
done

FAIL=0
for f in "$DIR"/*.xml; do
  [ -f "$f" ] || continue
  name=$(basename "$f")
  if [ -n "${BAD[$name]:-}" ]; then printf '%s\tRESULT\tINVALID\n' "$name"; FAIL=1; else printf '%s\tRESULT\tVALID\n' "$name"; fi
done
exit $FAIL
