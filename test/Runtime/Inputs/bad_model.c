/* Shared libraries that are not (valid) Decoda models, one per -DVARIANT=N (see the table below);
 * VARIANT=11 is a valid model with one entry f(x: f32[4]) and no outputs.
 *
 *   0: exports none of the ABI symbols           10: decoda_signature missing
 *   5: ABI version 3                              4: the entry symbol is missing
 *   25: ABI version 1 with a version-2 signature  27: a valid version-2 model with a donation
 *   others: a malformed decoda_signature
 */
#include <stdint.h>

#ifndef VARIANT
#error "compile with -DVARIANT=N"
#endif

#define HDR "decoda-signature 1\n"
#define HDR2 "decoda-signature 2\n"
#define GOOD "entry f\ninput x f32 1 4\nend\n"

#if VARIANT == 0
int not_a_model = 1;
#else

#if VARIANT == 5
const int32_t decoda_abi_version = 3;
#elif VARIANT == 21 || VARIANT == 22 || VARIANT == 24 || VARIANT == 26 || VARIANT == 27
const int32_t decoda_abi_version = 2;
#else
const int32_t decoda_abi_version = 1;
#endif

#if VARIANT == 1
#define SIG HDR "entry f\ninput x f33 1 4\nend\n" /* unknown dtype */
#elif VARIANT == 2
#define SIG HDR "entry f\ninput x f32 2 4\nend\n" /* rank 2, one dimension */
#elif VARIANT == 3
#define SIG HDR "entry f\ninput x f32 1 4\n" /* no end */
#elif VARIANT == 4
#define SIG HDR "entry g\ninput x f32 1 4\nend\n" /* no decoda_entry_g */
#elif VARIANT == 6
#define SIG GOOD /* no header */
#elif VARIANT == 7
#define SIG HDR "entry f\noutput y f32 1 4\ninput x f32 1 4\nend\n" /* input after output */
#elif VARIANT == 8
#define SIG HDR "entry f\ninput x f32 1 4\ninput x f32 1 4\nend\n" /* duplicate name */
#elif VARIANT == 9
#define SIG HDR "entry f\ninput x f32 1 -2\nend\n" /* dimension < -1 */
#elif VARIANT == 12
#define SIG HDR "entry f\ninput x f32 1 4\nend f\n" /* tokens after end */
#elif VARIANT == 13
#define SIG HDR "entry f\ninptu x f32 1 4\nend\n" /* unknown keyword */
#elif VARIANT == 14
#define SIG HDR "entry f\ninput x f32 9 1 1 1 1 1 1 1 1 1\nend\n" /* rank > 8 */
#elif VARIANT == 15
#define SIG "decoda-signature 3\n" GOOD /* unknown signature version */
#elif VARIANT == 16
#define SIG "" /* empty */
#elif VARIANT == 17
#define SIG HDR "entry\ninput x f32 1 4\nend\n" /* entry without a name */
#elif VARIANT == 18
#define SIG HDR GOOD "input y f32 1 4\n" /* an input outside an entry */
#elif VARIANT == 19
#define SIG HDR "entry f\ninput x f32 1 4x\nend\n" /* a dimension that is not a number */
#elif VARIANT == 20
#define SIG HDR GOOD GOOD /* duplicate entry */
#elif VARIANT == 21
#define SIG HDR2 "entry f\ninput x f32 1 4\noutput y f32 1 4\ndonate z y\nend\n" /* no input z */
#elif VARIANT == 22
#define SIG HDR2 "entry f\ninput x f32 1 4\noutput y f32 1 5\ndonate x y\nend\n" /* shapes */
#elif VARIANT == 23
#define SIG HDR "entry f\ninput x f32 1 4\noutput y f32 1 4\ndonate x y\nend\n" /* v1 */
#elif VARIANT == 24
#define SIG HDR2 "entry f\ninput x f32 1 4\noutput y f32 1 4\ndonate x y\noutput z f32 0\nend\n"
#elif VARIANT == 25
#define SIG HDR2 GOOD /* ABI version 1 */
#elif VARIANT == 26
#define SIG HDR2 "entry f\ninput x f32 1 4\ninput w f32 1 4\noutput y f32 1 4\ndonate x y\n" \
                 "donate w y\nend\n" /* two inputs donated to one output */
#elif VARIANT == 27
#define SIG HDR2 "entry f\ninput x f32 1 4\ninput w f32 1 4\noutput y f32 1 4\noutput x f32 1 4\n" \
                 "donate x x\nend\n"
#else
#define SIG HDR GOOD
#endif

#if VARIANT != 10
const char decoda_signature[] = SIG;
#endif

void decoda_entry_f(void **args) { (void)args; }
#endif
