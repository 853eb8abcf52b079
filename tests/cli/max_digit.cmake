# headlab max-digit through the executable: argument errors name the argument and exit non-zero.
function(headlab_max_digit_case name expect)
  add_test(NAME cli.max_digit.${name}
           COMMAND sh -c "exe=\"$1\"; shift; \"$exe\" max-digit \"$@\" 2>&1; echo \"exit=$?\"" sh $<TARGET_FILE:headlab> ${ARGN})
  set_tests_properties(cli.max_digit.${name} PROPERTIES PASS_REGULAR_EXPRESSION "${expect}")
endfunction()
set(_out ${CMAKE_CURRENT_BINARY_DIR}/max-digit-cli-never.json)
headlab_max_digit_case(usage "usage: headlab max-digit train.*exit=2")
headlab_max_digit_case(no_seed "--seed is required.*exit=2" train --out ${_out})
headlab_max_digit_case(bad_seed "--seed must be an integer in \\[0, 9007199254740991\\], got \"abc\".*exit=2" train --seed abc --out ${_out})
headlab_max_digit_case(bad_lr "learning_rate must be finite and > 0.*exit=2" train --seed 0 --lr -1 --out ${_out})
headlab_max_digit_case(bad_steps "--steps must be an integer.*exit=2" train --seed 0 --steps 1.5 --out ${_out})
headlab_max_digit_case(unknown_flag "unknown argument \"--speed\".*exit=2" train --seed 0 --speed 3 --out ${_out})
headlab_max_digit_case(missing_value "--out needs a value.*exit=2" train --seed 0 --out)
headlab_max_digit_case(no_weights_file "--weights: cannot open \"/nonexistent/w.json\".*exit=1" analyze --weights /nonexistent/w.json --out ${_out})
headlab_max_digit_case(weights_not_json "--weights: .* is not valid JSON.*exit=1" analyze --weights ${CMAKE_CURRENT_SOURCE_DIR}/data/attention_not_json.txt --out ${_out})
headlab_max_digit_case(weights_missing_version "missing field \"format_version\".*exit=1" analyze --weights ${CMAKE_CURRENT_SOURCE_DIR}/data/attention_identity.json --out ${_out})
headlab_max_digit_case(short_run "5 steps.*exit=0" train --seed 1 --steps 5 --out ${_out})
# Weights inside ±1e6, loss exploding (learning_rate 1: 2.2e6 after 100 steps, exit 0): diverged by the loss.
headlab_max_digit_case(loss_diverges "max-digit train: training diverged at step 100: the loss averaged [0-9.e+]+ over the last 16 steps, above 2 × 2.63906.*ln 14.*exit=1"
  train --seed 0 --steps 100 --batch 1 --lr 1 --weight-decay 0 --out -)
# No steps: no loss, which the file wrote as null (exit 0); the core's message, as the page's.
headlab_max_digit_case(zero_steps "max-digit train: steps must lie in \\[1, 10000000\\], got 0.*exit=2" train --seed 0 --steps 0 --out -)
headlab_max_digit_case(seeds_zero_steps "max-digit seeds: steps must lie in \\[1, 10000000\\], got 0.*exit=2" seeds --from 0 --to 0 --steps 0 --out -)
headlab_max_digit_case(seeds_no_range "--from is required.*exit=2" seeds --to 3 --out ${_out})
headlab_max_digit_case(seeds_backwards "--to must lie in \\[--from, --from \\+ 99\\], got \"1\".*exit=2" seeds --from 2 --to 1 --out ${_out})
# A short two-seed run writes one claims row per seed.
add_test(NAME cli.max_digit.seeds_short
         COMMAND sh -c "\"$1\" max-digit seeds --from 3 --to 4 --steps 5 --out \"$2\" && cat \"$2\"" sh $<TARGET_FILE:headlab>
                 ${CMAKE_CURRENT_BINARY_DIR}/max-digit-cli-seeds.json)
set_tests_properties(cli.max_digit.seeds_short PROPERTIES
  PASS_REGULAR_EXPRESSION "\"seeds\":\\[\\{\"claims\":\\{.*\"directions_w_o\":.*\"seed\":3\\},\\{\"claims\":.*\"seed\":4\\}\\]")
