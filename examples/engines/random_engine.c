/* A ColorShapeLinks engine in C: random legal moves.
 *
 * It speaks the csl-game engine protocol (docs/engines.md) on its standard
 * input and output. Build and play it with
 *
 *     cc -std=c99 -O2 -o random_engine random_engine.c
 *     csl-game match -W crandom -R minimax --engine "crandom=./random_engine"
 *
 * Its parameter, if any, seeds the random choices.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rows, cols, start_pieces[2]; /* start_pieces[shape]: 0 round, 1 square */
static int *heights;                    /* pieces in each column */
static int pieces[2][2];                /* pieces[player][shape] left; player 0 is White */
static int turn;
static unsigned long long rng_state = 88172645463325252ULL;

static unsigned long long next_random(void)
{
    rng_state ^= rng_state << 13; /* xorshift64 */
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* One line of input without its line end, or NULL at the end of input. */
static char *read_line(void)
{
    size_t size = 256, length = 0;
    char *line = malloc(size);
    int c;
    while (line != NULL && (c = getchar()) != EOF && c != '\n') {
        if (length + 1 == size)
            line = realloc(line, size *= 2);
        if (line != NULL)
            line[length++] = (char) c;
    }
    if (line == NULL || (c == EOF && length == 0)) {
        free(line);
        return NULL;
    }
    if (length > 0 && line[length - 1] == '\r')
        length--;
    line[length] = '\0';
    return line;
}

/* Write one line and flush it: the host is waiting for it. */
static void say(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
}

static void setup(const char *args)
{
    int win, time_ms, used = 0;
    if (sscanf(args, "%d %d %d %d %d %d %n", &rows, &cols, &win, &start_pieces[0],
               &start_pieces[1], &time_ms, &used) < 6 || cols < 1) {
        say("error cannot read the settings '%s'", args);
        return;
    }
    free(heights);
    heights = calloc((size_t) cols, sizeof *heights);
    rng_state ^= (unsigned long long) time(NULL) << 20 ^ (unsigned long long) clock();
    if (args[used] != '\0') { /* parameters: the seed */
        rng_state = 1469598103934665603ULL; /* FNV-1a of the parameters */
        for (const char *p = args + used; *p; p++)
            rng_state = (rng_state ^ (unsigned char) *p) * 1099511628211ULL;
    }
    say(heights != NULL ? "ready" : "error out of memory");
}

static void set_position(char *moves)
{
    memset(heights, 0, (size_t) cols * sizeof *heights);
    for (int player = 0; player < 2; player++)
        for (int shape = 0; shape < 2; shape++)
            pieces[player][shape] = start_pieces[shape];
    turn = 0;
    for (char *move = strtok(moves, " "); move != NULL; move = strtok(NULL, " ")) {
        int shape = move[strlen(move) - 1] == 's';
        heights[atoi(move)]++;
        pieces[turn][shape]--;
        turn = 1 - turn;
    }
}

static void go(void)
{
    int count = 0, choice;
    for (int col = 0; col < cols; col++)
        for (int shape = 0; shape < 2; shape++)
            if (heights[col] < rows && pieces[turn][shape] > 0)
                count++;
    say("info %d legal moves", count);
    if (count == 0) {
        say("move none");
        return;
    }
    choice = (int) (next_random() % (unsigned long long) count);
    for (int col = 0; col < cols; col++)
        for (int shape = 0; shape < 2; shape++)
            if (heights[col] < rows && pieces[turn][shape] > 0 && choice-- == 0)
                say("move %d%c", col, "rs"[shape]);
}

int main(void)
{
    char *line;
    while ((line = read_line()) != NULL) { /* the end of input also means quit */
        char *args = strchr(line, ' ');
        if (args != NULL)
            *args++ = '\0';
        else
            args = line + strlen(line);
        if (strcmp(line, "csl") == 0)
            say("csl 1 RandomC");
        else if (strcmp(line, "setup") == 0)
            setup(args);
        else if (strcmp(line, "position") == 0 && heights != NULL)
            set_position(args);
        else if (strcmp(line, "go") == 0 && heights != NULL)
            go();
        else if (strcmp(line, "quit") == 0) {
            free(line);
            break;
        }
        /* "stop" needs nothing: this engine answers at once. Unknown lines are ignored. */
        free(line);
    }
    free(heights);
    return 0;
}
