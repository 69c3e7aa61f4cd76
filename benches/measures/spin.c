/* The planted extra work of benches/measures.toml's candidate arm: argv[1] iterations of a
 * loop (6 instructions each: gcc 12 -O1, x86-64), 0 in the baseline, which starts it too. */
#include <stdlib.h>
volatile unsigned long sink;
int main(int argc, char **argv) {
    unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 0;
    for (unsigned long i = 0; i < n; i++) sink += i;
    return 0;
}
