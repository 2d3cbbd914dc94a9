# Writes the text of the file IN as a C++ raw string literal into OUT (#include'd where the
# text is needed): cmake -DIN=... -DOUT=... -P EmbedSource.cmake
file(READ "${IN}" text)
file(WRITE "${OUT}.tmp" "// Generated from ${IN} by EmbedSource.cmake; do not edit.\nR\"decoda_embed(${text})decoda_embed\"\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
