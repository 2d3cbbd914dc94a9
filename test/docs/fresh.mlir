// The committed dialect reference matches the ODS; run scripts/gen-docs.sh after changing a .td.
// RUN: diff -u %decoda_src/docs/Dialects/Decoda.md %decoda_obj/dialects/Decoda/Decoda.md
