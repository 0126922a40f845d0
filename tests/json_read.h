/* A tiny JSON reader (objects, arrays, strings, numbers, literals), header-only, for programs that
 * read hla's own JSON output back: the profiler test and bench_matmul --profile. Not a general
 * parser: no \u escapes beyond copying them. */
#ifndef HLA_JSON_READ_H
#define HLA_JSON_READ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jv {
  char type; /* 'o' object, 'a' array, 's' string, 'n' number, 'b' true/false, 'z' null */
  double num;
  char *str;
  int n;
  char **keys;
  struct jv **items;
} jv;

static void jfree(jv *v) {
  if (!v) return;
  for (int i = 0; i < v->n; i++) {
    if (v->keys) free(v->keys[i]);
    jfree(v->items[i]);
  }
  free(v->keys);
  free(v->items);
  free(v->str);
  free(v);
}

static void jws(const char **p) {
  while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r') (*p)++;
}

static char *jstring(const char **p) {
  if (**p != '"') return NULL;
  (*p)++;
  size_t cap = 16, n = 0;
  char *s = malloc(cap);
  while (**p && **p != '"') {
    char c = *(*p)++;
    if (c == '\\') {
      c = *(*p)++;
      if (c == 'u') { /* only \u00XX is written */
        unsigned x = 0;
        sscanf(*p, "%4x", &x);
        *p += 4;
        c = (char)x;
      } else if (c == 'n')
        c = '\n';
    }
    if (n + 2 > cap) s = realloc(s, cap *= 2);
    s[n++] = c;
  }
  if (**p != '"') {
    free(s);
    return NULL;
  }
  (*p)++;
  s[n] = 0;
  return s;
}

static jv *jparse(const char **p) {
  jws(p);
  jv *v = calloc(1, sizeof *v);
  if (**p == '{' || **p == '[') {
    char close = **p == '{' ? '}' : ']';
    v->type = **p == '{' ? 'o' : 'a';
    (*p)++;
    int cap = 0;
    jws(p);
    if (**p == close) {
      (*p)++;
      return v;
    }
    for (;;) {
      char *key = NULL;
      jws(p);
      if (v->type == 'o') {
        key = jstring(p);
        jws(p);
        if (!key || **p != ':') goto bad_key;
        (*p)++;
      }
      jv *item = jparse(p);
      if (!item) goto bad_key;
      if (v->n == cap) {
        cap = cap ? 2 * cap : 8;
        v->items = realloc(v->items, sizeof(jv *) * (size_t)cap);
        if (v->type == 'o') v->keys = realloc(v->keys, sizeof(char *) * (size_t)cap);
      }
      if (v->type == 'o') v->keys[v->n] = key;
      v->items[v->n++] = item;
      jws(p);
      if (**p == ',') {
        (*p)++;
        continue;
      }
      if (**p == close) {
        (*p)++;
        return v;
      }
      jfree(v);
      return NULL;
    bad_key:
      free(key);
      jfree(v);
      return NULL;
    }
  }
  if (**p == '"') {
    v->type = 's';
    v->str = jstring(p);
    if (v->str) return v;
  } else if (!strncmp(*p, "true", 4) || !strncmp(*p, "null", 4)) {
    v->type = **p == 't' ? 'b' : 'z';
    v->num = 1;
    *p += 4;
    return v;
  } else if (!strncmp(*p, "false", 5)) {
    v->type = 'b';
    *p += 5;
    return v;
  } else {
    char *end;
    v->type = 'n';
    v->num = strtod(*p, &end);
    if (end != *p) {
      *p = end;
      return v;
    }
  }
  free(v);
  return NULL;
}

/* The whole file parsed, or NULL. */
static jv *jload(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  fclose(f);
  s[got] = 0;
  const char *p = s;
  jv *v = jparse(&p);
  jws(&p);
  if (v && *p) jfree(v), v = NULL; /* trailing garbage */
  free(s);
  return v;
}

static jv *jget(const jv *o, const char *key) {
  if (!o || o->type != 'o') return NULL;
  for (int i = 0; i < o->n; i++)
    if (!strcmp(o->keys[i], key)) return o->items[i];
  return NULL;
}

static jv *jat(const jv *a, int i) {
  return a && a->type == 'a' && i >= 0 && i < a->n ? a->items[i] : NULL;
}

static double jnum(const jv *v) {
  return v && v->type == 'n' ? v->num : -1e300;
}
static const char *jstr(const jv *v) {
  return v && v->type == 's' ? v->str : "";
}
static int jlen(const jv *a) {
  return a && a->type == 'a' ? a->n : -1;
}

#endif
