// Included only through --pre-include.
#define PRE_INCLUDED 1
