# Writes the build's version header (sim/version.h.in -> <build>/generated/fdsim_version.h) with
# the git revision of the source tree as it is NOW, at every build (CMakeLists.txt runs this
# script from the fdsim_revision target, and once at configure time). The header is rewritten
# only when its text changes, so an unchanged tree recompiles nothing.
#
# The revision is `git rev-parse --short=12 HEAD`; if tracked files differ from HEAD or
# untracked, unignored files exist, it gets "+dirty." and the first 12 hex digits of the SHA-1
# of `git diff HEAD` and the list of untracked files, so that results written by an edited
# tree never claim a clean commit, and two different edits of one commit differ. "unknown"
# outside a git checkout.
#
# Usage: cmake -DSOURCE_DIR=... -DTEMPLATE=... -DOUTPUT=... -DPROJECT_VERSION=... -P git_revision.cmake
foreach(var SOURCE_DIR TEMPLATE OUTPUT PROJECT_VERSION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "git_revision.cmake: -D${var}=... is required")
  endif()
endforeach()

set(FDSIM_GIT_REVISION "unknown")
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE head RESULT_VARIABLE head_status
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(head_status EQUAL 0 AND head)
  set(FDSIM_GIT_REVISION "${head}")
  execute_process(COMMAND git status --porcelain
    WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE status RESULT_VARIABLE status_status
    ERROR_QUIET)
  if(status_status EQUAL 0 AND NOT status STREQUAL "")
    execute_process(COMMAND git diff HEAD
      WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE diff ERROR_QUIET)
    execute_process(COMMAND git ls-files --others --exclude-standard
      WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE untracked ERROR_QUIET)
    string(SHA1 digest "${diff}\n--untracked--\n${untracked}")
    string(SUBSTRING "${digest}" 0 12 digest)
    set(FDSIM_GIT_REVISION "${head}+dirty.${digest}")
  endif()
endif()

# configure_file leaves OUTPUT untouched (timestamp included) when the text is the same.
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
