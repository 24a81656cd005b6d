# common.sh: what the Gradescope and PrairieLearn scripts written by `grader export` share. Sourced, never run.
# docs/ta-guide.md ("Gradescope", "PrairieLearn") is the TA's side of it.
#
# Every path the platforms fix (/autograder, /grade, /opt/course-grader) is read under $GRADER_PLATFORM_ROOT,
# empty on the platforms themselves: the tests lay a platform's folders out under a temporary folder and point it
# there (tests/export/export_e2e.py).
#
# export.env, written by `grader export` beside these scripts, names the lab:
#   LAB=lab1  LAB_NAME=lab1-matvec  STUDENT_FILES="matvec.cpp"  MAX_SCORE=80  TIME_BUDGET=570

# TEXT as a JSON string: bytes that are not UTF-8 and control characters dropped, quotes, backslashes and line
# breaks escaped. For the results written when the grader itself could not write them.
json_string() {
  local text
  text=$(printf '%s' "$1" | iconv -c -f UTF-8 -t UTF-8 2>/dev/null | tr -d '\000-\010\013\014\016-\037')
  text=${text//\\/\\\\}
  text=${text//\"/\\\"}
  text=${text//$'\t'/\\t}
  text=${text//$'\r'/}
  text=${text//$'\n'/\\n}
  printf '"%s"' "$text"
}

# The lab's own objects are compiled with its flags, -march=native among them, so a cache built on one CPU must
# not be used on another: the platforms build the image on one machine and grade on others. The folder under
# DIR for this CPU (its model and feature flags).
cpu_cache_dir() {
  local key
  key=$( (grep -m2 -E '^(model name|flags)' /proc/cpuinfo || uname -m) | sha256sum | cut -c1-16)
  printf '%s/cache-%s' "$1" "$key"
}

# Builds COURSE/build/bin/grader: installs the packages and builds the grader alone (grader/setup.sh). With
# GRADER_PREBUILT naming a grader already built from the same sources (the tests; a TA trying the export on
# their own machine) it links that one instead and installs nothing.
build_grader() {
  local course=$1
  if [ -n "${GRADER_PREBUILT:-}" ]; then
    if [ ! -x "$GRADER_PREBUILT" ]; then
      echo "GRADER_PREBUILT=$GRADER_PREBUILT is not an executable grader" >&2
      return 1
    fi
    mkdir -p "$course/build/bin"
    ln -sfn "$GRADER_PREBUILT" "$course/build/bin/grader"
    echo "using the grader already built at $GRADER_PREBUILT (GRADER_PREBUILT): nothing installed"
  else
    bash "$course/grader/setup.sh" --student --grader-only
  fi
}

# Builds the lab's harness and judge once, into CACHE, by grading the lab's skeleton for correctness only, so
# each submission compiles only the student's files. Any answer but "graded" (exit 0 or 1) fails the setup.
prebuild_lab() {
  local course=$1 cache=$2 report status
  report=$(mktemp)
  GRADER_CACHE=$cache "$course/build/bin/grader" --root "$course" grade "$LAB" --quick \
    --submission "$course/skeletons/$LAB_NAME" --format json --output "$report"
  status=$?
  rm -f "$report"
  if [ "$status" -gt 1 ]; then
    echo "the grader could not grade $LAB's skeleton (exit $status): the setup is broken" >&2
    return 1
  fi
  echo "built $LAB_NAME's harness and judge into $cache"
}

# The folder that holds the student's files under TOP: TOP itself; else the one folder TOP holds (an upload of
# a zipped folder); else TOP/skeletons/<lab> (an upload of the whole student repository, from GitHub). When none
# holds the first file, TOP, and the grader names what is missing.
submission_folder() {
  local top=$1 first=${STUDENT_FILES%% *} entries
  if [ -e "$top/$first" ]; then printf '%s' "$top"; return; fi
  if [ -e "$top/skeletons/$LAB_NAME/$first" ]; then printf '%s' "$top/skeletons/$LAB_NAME"; return; fi
  entries=("$top"/*)
  if [ "${#entries[@]}" -eq 1 ] && [ -e "${entries[0]}/$first" ]; then printf '%s' "${entries[0]}"; return; fi
  printf '%s' "$top"
}

# What broke, in one sentence, from the grader's exit status and what it printed (its last lines).
what_broke() {
  local status=$1 log=$2 why
  case $status in
    124|137) why="the grader ran past its time budget of ${TIME_BUDGET} s and was stopped" ;;
    127) why="there is no grader to run: the setup did not finish (see the autograder's build log)" ;;
    2) why="the grader refused its command line or the lab's lab.toml (exit 2)" ;;
    3) why="the grading machine lacks a tool the grader needs (exit 3)" ;;
    *) why="the grader stopped with exit status $status without writing results" ;;
  esac
  printf '%s\n%s' "$why" "$(tail -n 20 "$log" 2>/dev/null)"
}

# Whether the grader's results file can be handed on: the grader ended by itself, having graded (0, 1), having
# reported its own failure in the file (4), or not run on purpose (5), and the file is there. The grader writes
# it whole or not at all.
grader_wrote_results() {
  local status=$1 results=$2
  case $status in 0|1|4|5) [ -s "$results" ] ;; *) return 1 ;; esac
}
