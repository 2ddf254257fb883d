#!/usr/bin/env bash
# Write the man pages of evalset and of each of its commands in roff into
# OUTDIR, from what the binary says (`evalset -h`, `evalset <cmd> -h`) and
# from docs/man/desc/<cmd>.txt, the text for users of what the command does
# (paragraphs separated by blank lines; a command without one gets its
# summary line and a warning). The pages are committed under
# docs/man/man1/ and installed as they are, so a build never runs the binary
# it built (cross-builds work); `tools/dev.sh man` runs this script, and the
# test 'man-pages' fails when the committed pages no longer match.
#
# usage: mkman.sh EVALSET SRCDIR OUTDIR
set -euo pipefail
evalset=$1 src=$2 outdir=$3
# a sanitizer build must not fail the page for a leak report at exit
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# roff-escape a line: backslashes, leading dots and quotes, hyphens in options
esc() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\\&'/" -e 's/-/\\-/g'; }
# esc_str TEXT: TEXT escaped as esc escapes a line, in REPLY (no process:
# the options of every command are a few hundred lines)
esc_str() {
  local s=$1
  s=${s//\\/\\e}
  case $s in
    .*|\'*) s="\\&$s" ;;
  esac
  REPLY=${s//-/\\-}
}

exit_status() {
  cat <<'ROFF'
.SH EXIT STATUS
.TP
.B 0
success; the gate passed
.TP
.B 1
a gate failed, a regression was found, or check found errors
.TP
.B 2
bad usage or bad input (the message names the file, line and problem);
nothing is written
.TP
.B 3
a remote failure: an LLM or retriever endpoint unreachable, or auth or quota refused
.TP
.B 130
interrupted; the work done so far is kept and resumable
ROFF
}

environment() {
  cat <<'ROFF'
.SH ENVIRONMENT
.TP
.B EVALSET_CONFIG
the project config file (else ./evalset.yaml, then parents up to the repository root)
.TP
.B EVALSET_MODEL, OPENAI_BASE_URL, EVALSET_CONCURRENCY, EVALSET_K, EVALSET_MEASURES, EVALSET_GATE
defaults that override the config file and are overridden by flags
.TP
.B EVALSET_PROMPT_DIR
where the prompt templates are (else the installed ones)
.TP
.B OPENAI_API_KEY
the API key (or the variable named by \-\-api\-key\-env); never written anywhere
ROFF
}

page() { # page CMD|evalset: the page, on stdout
  local cmd=$1 summary help upper file
  if [ "$cmd" = evalset ]; then
    echo ".TH EVALSET 1 \"\" \"evalset\" \"evalset manual\""
    echo ".SH NAME"
    echo "evalset \\- build evaluation sets for retrieval and gate merges on regressions"
    echo ".SH SYNOPSIS"
    echo ".B evalset"
    echo "[\\-\\-version] [\\-h] [\\-\\-config \\fIfile\\fR] \\fIcommand\\fR [\\fIargs\\fR]"
    echo ".SH DESCRIPTION"
    echo "evalset builds 50\\(en200 question evaluation sets for the retrieval step of RAG,"
    echo "versions them as YAML, scores retriever runs against a tagged version, and fails"
    echo "CI when recall@k drops for real. Each command has its own page,"
    echo ".BR evalset\\-<command> (1)."
    echo ".SH COMMANDS"
    "$evalset" -h | sed -n 's/^    \([a-z-]*\) \+\(.*\)$/\1\t\2/p' | while IFS=$'\t' read -r name summary; do
      echo ".TP"
      echo ".BR evalset\\-$(printf '%s' "$name" | esc) (1)"
      printf '%s\n' "$summary" | esc
    done
    echo ".SH OPTIONS"
    echo ".TP"
    echo ".B \\-\\-version"
    echo "print the version of evalset and of the libcurl, cJSON, libyaml and utf8proc it runs with"
    echo ".TP"
    echo ".BI \\-\\-config \" file\""
    echo "read the project config from \\fIfile\\fR (see \\fBevalset\\-config\\fR(1))"
    echo ".TP"
    echo ".B \\-h"
    echo "list the commands"
    environment
    exit_status
  else
    summary=$("$evalset" -h | sed -n "s/^    $cmd \\+\\(.*\\)\$/\\1/p")
    help=$("$evalset" "$cmd" -h)
    upper=$(printf '%s' "$cmd" | tr a-z A-Z)
    echo ".TH EVALSET-$upper 1 \"\" \"evalset\" \"evalset manual\""
    echo ".SH NAME"
    echo "evalset\\-$(printf '%s' "$cmd" | esc) \\- $(printf '%s' "$summary" | esc)"
    echo ".SH SYNOPSIS"
    echo ".nf"
    # the usage lines: everything before the first blank line
    printf '%s\n' "$help" | sed -n '1,/^$/p' | sed -e 's/^usage: //' -e 's/^   or: //' -e '/^$/d' | esc
    echo ".fi"
    echo ".SH DESCRIPTION"
    # docs/man/desc/<cmd>.txt says what the command does
    file="$src/docs/man/desc/$cmd.txt"
    if [ -f "$file" ]; then
      esc < "$file" | sed 's/^$/.PP/'
    else
      echo "mkman.sh: no $file: the page describes $cmd by its summary only" >&2
      printf '%s\n' "$summary" | esc
    fi
    echo ".SH OPTIONS"
    # the lines after the first blank one: an option (its name and
    # argument, two spaces or more, its text) or a line of its text
    local line opts=0 out="" re='^ +(-[^ ]+(, -[^ ]+)?( [^ ]+)?) {2,}(.*)$'
    while IFS= read -r line; do
      if [ "$opts" = 0 ]; then
        [ -n "$line" ] || opts=1
        continue
      fi
      [ -n "$line" ] || continue
      if [[ $line =~ $re ]]; then
        local text=${BASH_REMATCH[4]}
        esc_str "${BASH_REMATCH[1]}"
        out+=".TP"$'\n'".B $REPLY"$'\n'
        esc_str "$text"
        out+="$REPLY"$'\n'
      else
        esc_str "${line#"${line%%[! ]*}"}"
        out+="$REPLY"$'\n'
      fi
    done <<< "$help"
    printf '%s' "$out"
    echo ".TP"
    echo ".B \\-h, \\-\\-help"
    echo "print the usage and options, and exit 0"
    exit_status
    echo ".SH SEE ALSO"
    echo ".BR evalset (1)"
  fi
}

mkdir -p "$outdir"
cmds=$("$evalset" -h | sed -n 's/^    \([a-z-]*\) .*/\1/p')
[ -n "$cmds" ] || { echo "mkman.sh: no commands in '$evalset -h'" >&2; exit 1; }
for c in evalset $cmds; do
  [ "$c" = evalset ] && out=$outdir/evalset.1 || out=$outdir/evalset-$c.1
  page "$c" > "$out.tmp"
  mv "$out.tmp" "$out"
done
