#!/usr/bin/env bash
# Install test (suite 'install'): configure the source tree afresh in a
# temporary build dir, `meson install` it into a temporary prefix, and run
# the installed binary the way a user would, with no source tree around.
#
# usage: run.sh SRCDIR
# Prints TAP. Checks: --version names the libraries; generate --dry-run
# finds the installed prompts without --prompt-dir (and fails without them);
# `evalset config` shows the installed prompt dir as the built-in; every
# command of `evalset -h` has an installed man page with the required
# sections; the bash completion completes commands, options and set@tag.
set -u
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
check() {  # check DESCRIPTION COMMAND...
  n=$((n + 1))
  if "${@:2}" >"$tmp/check.out" 2>&1; then
    echo "ok $n - $1"
  else
    failed=$((failed + 1))
    echo "not ok $n - $1"
    sed 's/^/#   /' "$tmp/check.out" | head -15
  fi
}

prefix=$tmp/prefix
build=$tmp/build
unset EVALSET_PROMPT_DIR EVALSET_CONFIG MESON_BUILD_ROOT MESON_SOURCE_ROOT
setup_and_install() {
  meson setup "$build" "$src" --prefix "$prefix" -Dbuildtype=plain -Db_sanitize=none >"$tmp/setup.log" 2>&1 ||
    { echo "meson setup failed:"; tail -12 "$tmp/setup.log"; return 1; }
  # only what is installed and built: the binary (the man pages are committed)
  ninja -C "$build" -j2 evalset \
    >"$tmp/build.log" 2>&1 ||
    { echo "build failed:"; grep -E 'FAILED|error' "$tmp/build.log" | head -12; return 1; }
  meson install -C "$build" --no-rebuild >"$tmp/install.log" 2>&1 ||
    { echo "meson install failed:"; tail -12 "$tmp/install.log"; return 1; }
}
check "fresh configure, build and meson install into a temporary prefix" setup_and_install
[ "$failed" = 0 ] || { echo "1..$n"; exit 1; }
bin=$prefix/bin/evalset
datadir=$prefix/share/evalset

mkdir -p "$tmp/work"
cd "$tmp/work" || exit 1
versions() {
  "$bin" --version > v.txt && cat v.txt &&
  for lib in evalset libcurl cJSON libyaml utf8proc; do grep -q "^$lib [0-9]" v.txt || return 1; done
}
check "installed --version prints evalset's and each library's version" versions
check "the prompts are installed under share/evalset/prompts" test -f "$datadir/prompts/generate-factoid.md"

printf '%s\n' '{"id": "c1", "text": "The Eiffel tower in Paris was built in 1889 for the world fair."}' \
  '{"id": "c2", "text": "An API key is rotated from the security page of the settings."}' > corpus.jsonl
"$bin" init demo --corpus corpus.jsonl >/dev/null 2>&1
dry_run() {
  "$bin" generate demo --corpus corpus.jsonl --model m --dry-run && test ! -e sets/demo/.evalset/generate.jsonl
}
check "installed generate --dry-run finds the installed prompts without --prompt-dir" dry_run
hidden() {
  mv "$datadir/prompts/generate-factoid.md" "$tmp/factoid.md"
  "$bin" generate demo --corpus corpus.jsonl --model m --dry-run > out.txt 2>&1
  rc=$?
  mv "$tmp/factoid.md" "$datadir/prompts/generate-factoid.md"
  cat out.txt
  [ "$rc" = 2 ] && grep -q "'$prefix/.*share/evalset/prompts/generate-factoid.md' does not exist" out.txt
}
check "and it was those prompts: without the installed template it fails naming that dir" hidden
check "the import presets are installed under share/evalset/presets" test -f "$datadir/presets/langfuse.preset"
preset_found() {
  printf '%s\n' '{"input": {"query": "rotate key"}, "sessionId": "s1", "scores": [{"value": 1, "metadata": {"doc_id": "c2"}}]}' > traces.jsonl
  "$bin" import demo --preset langfuse --log traces.jsonl --min-clicks 1 --dry-run | tee p.txt &&
  grep -q '^would add q-0001: rotate key' p.txt
}
check "installed import --preset langfuse finds the installed preset" preset_found
config_shows() {
  "$bin" config | tee c.txt | grep -E "^prompt_dir +$prefix/bin/../share/evalset/prompts +built-in$|^prompt_dir +$datadir/prompts +built-in$"
}
check "evalset config shows the installed prompt dir as the built-in" config_shows

man_pages() {
  local cmds c page missing=0
  cmds=$("$bin" -h | sed -n 's/^    \([a-z-]*\) .*/\1/p')
  [ -n "$cmds" ] || return 1
  for c in evalset $cmds; do
    [ "$c" = evalset ] && page=$prefix/share/man/man1/evalset.1 || page=$prefix/share/man/man1/evalset-$c.1
    if [ ! -s "$page" ]; then echo "no man page for '$c'"; missing=1; continue; fi
    for sec in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS"; do
      grep -q "^\.SH $sec\$" "$page" || { echo "$page lacks $sec"; missing=1; }
    done
  done
  [ "$missing" = 0 ]
}
check "every command of 'evalset -h' has an installed man page with NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS" man_pages
if command -v man >/dev/null 2>&1; then
  check "man renders the export page" sh -c "MANWIDTH=80 man -l '$prefix/share/man/man1/evalset-export.1' 2>&1 | grep -q 'evalset-export - write a set'"
fi

completion() {
  local f=$prefix/share/bash-completion/completions/evalset
  test -f "$prefix/share/zsh/site-functions/_evalset" || { echo "no zsh completion"; return 1; }
  mkdir -p sets/demo/versions && : > sets/demo/versions/v1.yaml
  bash -c '
    source "$1"
    comp() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _evalset; printf "%s " "${COMPREPLY[@]}"; echo; }
    comp "$2" exp
    comp "$2" export --fo
    comp "$2" export de
    comp "$2" export demo@
    comp "$2" export demo --format ""
  ' _ "$f" "$bin" > comp.txt
  cat comp.txt
  rm -rf sets/demo/versions
  # compare each line's words as a set
  diff <(while read -r l; do printf '%s\n' $l | sort | tr '\n' ' '; echo; done < comp.txt) - <<'WANT'
export 
--force --format 
demo 
demo@v1 
beir jsonl trec-qrels 
WANT
}
check "bash completion completes commands, options, sets and tags" completion

# zsh: _evalset runs in zsh itself, with zsh's completion builtins (which only
# work inside a completion widget) replaced by functions printing what they
# would offer, filtered by the word typed so far as zsh would
zsh_completion() {
  local f=$prefix/share/zsh/site-functions/_evalset
  command -v zsh >/dev/null 2>&1 || { echo "zsh is not installed (Debian: apt-get install zsh)"; return 1; }
  mkdir -p sets/demo/versions && : > sets/demo/versions/v1.yaml
  zsh -f -c '
    emulate zsh
    f=$1 bin=$2
    offer() { local w; for w in "$@"; do [[ $w == ${PREFIX}* ]] && print -rn -- "$w "; done; }
    compadd() {
      local -a words_out
      while (( $# )); do
        case $1 in
          -S|-J|-X|-t) shift 2 ;;
          -a) shift; local n; for n in "$@"; do words_out+=("${(@P)n}"); done; break ;;
          --) shift; words_out+=("$@"); break ;;
          -*) shift ;;
          *) words_out+=("$@"); break ;;
        esac
      done
      offer "${words_out[@]}"
    }
    _describe() { local -a items=("${(@P)${@[-1]}}"); offer "${items[@]%%:*}"; }
    _files() { print -rn -- "<files> "; }
    source "$f" 2>/dev/null   # defines _evalset (its last line calls it once, harmlessly)
    comp() { words=("$@"); CURRENT=$#; PREFIX=${words[CURRENT]}; _evalset; print; }
    comp "$bin" exp
    comp "$bin" export --fo
    comp "$bin" export de
    comp "$bin" export demo@
    comp "$bin" export demo --format ""
  ' _ "$f" "$bin" > zcomp.txt 2>&1
  cat zcomp.txt
  rm -rf sets/demo/versions
  diff <(while read -r l; do printf '%s\n' $l | sort | tr '\n' ' '; echo; done < zcomp.txt) - <<'WANT'
export 
--force --format 
<files> demo 
<files> demo@v1 
beir jsonl trec-qrels 
WANT
}
check "zsh completion completes commands, options, sets and tags" zsh_completion

echo "1..$n"
[ "$failed" = 0 ]
