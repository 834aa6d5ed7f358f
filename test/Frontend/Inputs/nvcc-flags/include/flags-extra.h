// Found only through --include-path or --system-include.
#define EXTRA_FOUND 1
