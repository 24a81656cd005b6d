#!/usr/bin/env bash
# grade.sh: PrairieLearn's entrypoint for the lab's question (written by `grader export prairielearn`). It grades
# /grade/student with the lab's hidden cases and always leaves /grade/results/results.json in PrairieLearn's
# format: the grader's own, or, when the grader itself failed, a result marked not gradable (the student keeps
# the attempt) that says what broke.
#   /opt/course-grader         the image: the grader, built, and the student release of the lab
#   /grade/tests               the question's tests/: export.env and the lab's hidden cases and datasets
#   /grade/student             the files the student submitted
set -uo pipefail
prefix="${GRADER_PLATFORM_ROOT:-}"
job="$prefix/grade"
image_dir="$prefix/opt/course-grader"
. "$image_dir/platform/common.sh"
. "$job/tests/export.env"

# The hidden cases and datasets: the grader (root) reads them; the student's code is compiled as the grader's build
# user and runs as `nobody`, who must not (docs/threat-model.md). The course copy below is in a private mktemp folder.
chmod -R go-rwx "$job/tests" 2>/dev/null || echo "cannot make $job/tests private: the hidden cases may be readable by the student's code" >&2
results="$job/results/results.json"
mkdir -p "$job/results"
rm -f "$results"
log=$(mktemp)
status=127
grader="$image_dir/course/build/bin/grader"
# The course the grader reads: the lab kit from the image, the lab with its hidden cases from tests/.
course=$(mktemp -d)/course
mkdir -p "$course/grader"
if cp -r "$image_dir/course/grader/labkit" "$image_dir/course/grader/calibrate" "$course/grader/" 2>>"$log" &&
   cp -r "$job/tests/course/." "$course/" 2>>"$log" && [ -x "$grader" ]; then
  GRADER_CACHE=$(cpu_cache_dir "$image_dir") timeout --kill-after=10 "$TIME_BUDGET" \
    "$grader" --root "$course" grade "$LAB" --submission "$(submission_folder "$job/student")" --hidden \
    --format prairielearn --output "$results" 2>"$log"
  status=$?
fi

if ! grader_wrote_results "$status" "$results"; then
  message="The autograder failed, not your submission; this attempt does not count. $(what_broke "$status" "$log")"
  cat > "$results" <<JSON
{
  "gradable": false,
  "score": 0,
  "message": $(json_string "$message"),
  "format_errors": [$(json_string "$message")],
  "tests": []
}
JSON
fi
echo "grader exit status $status"
cat "$log"
rm -f "$log"
exit 0
