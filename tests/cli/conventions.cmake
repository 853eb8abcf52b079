# The command line's conventions (cli/flags.hpp, docs/limits.md "The command line"), the same
# for every command: exit 0 done, 1 input or computation refused or an output not written,
# 2 usage; a flag given twice is a usage error; seeds are integers in [0, 2^53 − 1]; an output
# never replaces an input of the same command; a write that fails, stdout included, exits 1.
set(_exe $<TARGET_FILE:headlab>)
set(_weights ${CMAKE_SOURCE_DIR}/site/pages/data/max-digit-seed0.json)
set(_conv ${CMAKE_CURRENT_BINARY_DIR}/conventions)
function(headlab_convention_case name expect script)
  add_test(NAME cli.conventions.${name} COMMAND sh -c "exe=\"$1\"; w=\"$2\"; d=\"$3\"; mkdir -p \"$d\"; ${script}; echo \"exit=$?\""
           sh ${_exe} ${_weights} ${_conv}/${name})
  set_tests_properties(cli.conventions.${name} PROPERTIES PASS_REGULAR_EXPRESSION "${expect}")
endfunction()

# One repeated-flag rule: every command that takes flags refuses a flag given twice, exit 2.
headlab_convention_case(twice_feature_recovery "--seed is given twice.*usage: headlab feature-recovery.*exit=2"
  "\"$exe\" feature-recovery --seed 1 --seed 2 --out - 2>&1")
headlab_convention_case(twice_max_digit "--out is given twice.*usage: headlab max-digit.*exit=2"
  "\"$exe\" max-digit analyze --weights \"$w\" --out a --out b 2>&1")
headlab_convention_case(twice_model "--seed is given twice.*usage: headlab model.*exit=2"
  "\"$exe\" model train --task induction --seed 1 --seed 1 --out m 2>&1")
headlab_convention_case(attention_flag "usage: headlab attention.*exit=2" "\"$exe\" attention --x 1 2>&1")

# One seed range: 2^53 − 1 is accepted, 2^53 refused with the same message by every command.
headlab_convention_case(seed_largest "\"seed\":9007199254740991.*exit=0"
  "\"$exe\" feature-recovery --seed 9007199254740991 --steps 0 --eval-size 4 --out - 2>&1")
foreach(_cmd "feature-recovery --out -" "max-digit train --out x" "model train --task induction --out x")
  string(REGEX REPLACE "[^a-z]+" "_" _id "${_cmd}")
  headlab_convention_case(seed_beyond${_id} "--seed must be an integer in \\[0, 9007199254740991\\], got \"9007199254740992\".*exit=2"
    "\"$exe\" ${_cmd} --seed 9007199254740992 2>&1")
endforeach()
headlab_convention_case(seed_model_analyze "--seed must be an integer in \\[0, 9007199254740991\\], got \"-1\".*exit=2"
  "\"$exe\" model analyze --config c --weights w --prompt 1 --seed -1 2>&1")

# Never over an input: --out naming the --weights file itself, through an alias path and through
# a symlink, is refused (exit 1) and the weights file keeps its bytes.
headlab_convention_case(out_is_weights "--out \"[^\"]*w.json\" is the same file as --weights.*exit=1.*intact"
  "cp \"$w\" \"$d/w.json\"; \"$exe\" max-digit analyze --weights \"$d/w.json\" --out \"$d/w.json\" 2>&1; echo exit=$?; cmp -s \"$w\" \"$d/w.json\" && echo intact")
headlab_convention_case(out_alias_weights "is the same file as --weights.*exit=1.*intact"
  "cp \"$w\" \"$d/w.json\"; \"$exe\" max-digit analyze --weights \"$d/w.json\" --out \"$d/../$(basename \"$d\")/./w.json\" 2>&1; echo exit=$?; cmp -s \"$w\" \"$d/w.json\" && echo intact")
headlab_convention_case(out_symlink_weights "is the same file as --weights.*exit=1.*intact"
  "cp \"$w\" \"$d/w.json\"; ln -sf w.json \"$d/link.json\"; \"$exe\" max-digit analyze --weights \"$d/w.json\" --out \"$d/link.json\" 2>&1; echo exit=$?; cmp -s \"$w\" \"$d/w.json\" && echo intact")
# An output through a symlink replaces the file the link names, and the link stays a link.
headlab_convention_case(out_through_symlink "exit=0.*link kept.*target written"
  "rm -f \"$d/a.json\" \"$d/link.json\"; echo old > \"$d/a.json\"; ln -s a.json \"$d/link.json\"; \"$exe\" max-digit analyze --weights \"$w\" --out \"$d/link.json\" 2>&1; echo exit=$?; test -L \"$d/link.json\" && echo link kept; grep -q format_version \"$d/a.json\" && echo target written")
headlab_convention_case(model_out_is_weights "--out \"[^\"]*w.json\" is the same file as --weights.*exit=1.*intact"
  "cp \"$w\" \"$d/w.json\"; \"$exe\" model convert-max-digit --weights \"$d/w.json\" --out \"$d/w.json\" 2>&1; echo exit=$?; cmp -s \"$w\" \"$d/w.json\" && echo intact")

# Two outputs of one command are never the same file: refused with both flags named, exit 2, before
# training, nothing written (the config used to overwrite the weights, exit 0). The same path, an
# alias of a path not there yet, a symlink and a hard link to an existing file, and the default
# --config-out (--out with .json) when that name is a link to --out.
set(_train "model train --task induction --seed 0 --steps 1")
headlab_convention_case(outputs_same_path "--config-out \"[^\"]*m.safetensors\" is the same file as --out \"[^\"]*m.safetensors\".*exit=2.*nothing written"
  "rm -rf \"$d\"/*; \"$exe\" ${_train} --out \"$d/m.safetensors\" --config-out \"$d/m.safetensors\" 2>&1; echo exit=$?; test -z \"$(ls \"$d\")\" && echo nothing written")
headlab_convention_case(outputs_alias_path "--config-out \"[^\"]*\" is the same file as --out .*exit=2.*nothing written"
  "rm -rf \"$d\"/*; \"$exe\" ${_train} --out \"$d/m.safetensors\" --config-out \"$d/./no/../m.safetensors\" 2>&1; echo exit=$?; test -z \"$(ls \"$d\")\" && echo nothing written")
headlab_convention_case(outputs_symlink "--config-out \"[^\"]*link.json\" is the same file as --out.*exit=2.*intact"
  "rm -rf \"$d\"/*; echo weights > \"$d/m.safetensors\"; ln -s m.safetensors \"$d/link.json\"; \"$exe\" ${_train} --out \"$d/m.safetensors\" --config-out \"$d/link.json\" 2>&1; echo exit=$?; grep -qx weights \"$d/m.safetensors\" && echo intact")
headlab_convention_case(outputs_hard_link "--config-out \"[^\"]*hard.json\" is the same file as --out.*exit=2.*intact"
  "rm -rf \"$d\"/*; echo weights > \"$d/m.safetensors\"; ln \"$d/m.safetensors\" \"$d/hard.json\"; \"$exe\" ${_train} --out \"$d/m.safetensors\" --config-out \"$d/hard.json\" 2>&1; echo exit=$?; grep -qx weights \"$d/m.safetensors\" && echo intact")
headlab_convention_case(outputs_default_config_link "--config-out \\(by default\\) \"[^\"]*m.json\" is the same file as --out.*exit=2.*intact"
  "rm -rf \"$d\"/*; echo weights > \"$d/m.safetensors\"; ln -s m.safetensors \"$d/m.json\"; \"$exe\" ${_train} --out \"$d/m.safetensors\" 2>&1; echo exit=$?; grep -qx weights \"$d/m.safetensors\" && echo intact")
headlab_convention_case(outputs_convert_same "--config-out \"[^\"]*m.safetensors\" is the same file as --out.*exit=2.*nothing written"
  "rm -rf \"$d\"/*; \"$exe\" model convert-max-digit --weights \"$w\" --out \"$d/m.safetensors\" --config-out \"$d/m.safetensors\" 2>&1; echo exit=$?; test -z \"$(ls \"$d\")\" && echo nothing written")
# An output over an input through a default name: convert-max-digit's config defaults to --out with
# .json, here the --weights file it reads.
headlab_convention_case(outputs_default_config_is_input "--config-out \\(by default\\) \"[^\"]*w.json\" is the same file as --weights.*exit=1.*intact"
  "rm -rf \"$d\"/*; cp \"$w\" \"$d/w.json\"; \"$exe\" model convert-max-digit --weights \"$d/w.json\" --out \"$d/w.safetensors\" 2>&1; echo exit=$?; cmp -s \"$w\" \"$d/w.json\" && echo intact")
# A model is a binary file plus its config: "-" (stdout) is refused for either, exit 2, and no file
# named "-" or "-.json" appears (they used to).
headlab_convention_case(model_out_stdout "--out -: a model is two files.*exit=2.*no file"
  "rm -rf \"$d\"/*; cd \"$d\" && \"$exe\" ${_train} --out - 2>&1; echo exit=$?; test -z \"$(ls)\" && echo no file")
headlab_convention_case(model_config_out_stdout "--config-out -: a model is two files.*exit=2.*no file"
  "rm -rf \"$d\"/*; cd \"$d\" && \"$exe\" model convert-max-digit --weights \"$w\" --out m.safetensors --config-out - 2>&1; echo exit=$?; test -z \"$(ls)\" && echo no file")

# A directory where a file belongs is called a directory, as an input or an output (an input
# directory was "larger than 4194304 bytes").
headlab_convention_case(directory_config "--config: \"[^\"]*\" is a directory, not a file.*exit=1"
  "\"$exe\" model inspect --config \"$d\" --weights \"$d\" 2>&1")
headlab_convention_case(directory_weights "--weights: \"[^\"]*\" is a directory, not a file.*exit=1"
  "\"$exe\" max-digit analyze --weights \"$d\" --out - 2>&1")
# A command that checks its outputs against its inputs refuses a directory there too, before it
# reads anything (here a --weights file that is not there, which would be the message otherwise);
# the others at the write.
headlab_convention_case(directory_out "--out: \"[^\"]*\" is a directory, not a file.*exit=1"
  "mkdir -p \"$d/a.json\"; \"$exe\" max-digit analyze --weights \"$d/missing.json\" --out \"$d/a.json\" 2>&1")
headlab_convention_case(directory_out_at_write "--out: \"[^\"]*\" is a directory, not a file.*exit=1"
  "mkdir -p \"$d/a.json\"; \"$exe\" feature-recovery --seed 0 --steps 0 --eval-size 4 --out \"$d/a.json\" 2>&1")

# A file write that fails part-way (here the file-size limit, ulimit -f 1 = 512 bytes, standing in
# for a full disk): exit 1 with a message, the previous file whole, no temporary file left beside it.
headlab_convention_case(out_write_fails_keeps_previous "cannot write \"[^\"]*a.json\".*exit=1.*previous kept.*no temporary"
  "rm -f \"$d\"/*; echo previous > \"$d/a.json\"; (ulimit -f 1; exec \"$exe\" max-digit analyze --weights \"$w\" --out \"$d/a.json\") 2>&1; echo exit=$?; grep -qx previous \"$d/a.json\" && echo previous kept; ls \"$d\" | grep -q tmp || echo no temporary")

# A failed write of stdout: a full device (ENOSPC) and a closed stdout (EBADF) exit 1 with a message.
headlab_convention_case(stdout_full_feature_recovery "cannot write to stdout.*exit=1"
  "\"$exe\" feature-recovery --seed 0 --steps 0 --eval-size 4 --out - 2>&1 >/dev/full")
headlab_convention_case(stdout_full_attention "cannot write to stdout.*exit=1"
  "echo '{\"x\":[[1]],\"w_q\":[[1]],\"w_k\":[[1]],\"w_v\":[[1]]}' | \"$exe\" attention 2>&1 >/dev/full")
headlab_convention_case(stdout_full_max_digit "cannot write to stdout.*exit=1"
  "\"$exe\" max-digit analyze --weights \"$w\" --out - 2>&1 >/dev/full")
headlab_convention_case(stdout_closed "cannot write to stdout.*exit=1"
  "\"$exe\" feature-recovery --seed 0 --steps 0 --eval-size 4 --out - 2>&1 >&-")
# An interrupted write (SIGINT, SIGTERM, SIGHUP part-way through the file): the old file whole, no
# temporary file left, the process ended by the signal. node holds the write in progress.
add_test(NAME cli.conventions.interrupted_write
         COMMAND node ${CMAKE_CURRENT_SOURCE_DIR}/cli/interrupted-write.mjs ${_exe} ${_conv}/interrupted_write)
# A closed pipe (EPIPE, read end closed before the command writes): node holds the pipe.
add_test(NAME cli.conventions.stdout_closed_pipe
         COMMAND node ${CMAKE_CURRENT_SOURCE_DIR}/cli/closed-pipe.mjs ${_exe})
