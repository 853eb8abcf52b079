# headlab attention through the executable: success, and each kind of bad input.
set(_cli $<TARGET_FILE:headlab>)
set(_data ${CMAKE_CURRENT_SOURCE_DIR}/data)
add_test(NAME cli.version COMMAND ${_cli} --version)
set_tests_properties(cli.version PROPERTIES PASS_REGULAR_EXPRESSION "^headlab [0-9]+\\.[0-9]+\\.[0-9]+")
add_test(NAME cli.unknown_command COMMAND ${_cli} frobnicate)
set_tests_properties(cli.unknown_command PROPERTIES WILL_FAIL TRUE)

function(headlab_cli_case name input expect)
  add_test(NAME cli.attention.${name}
           COMMAND sh -c "\"$1\" attention < \"$2\"; echo \"exit=$?\"" sh ${_cli} ${_data}/${input})
  set_tests_properties(cli.attention.${name} PROPERTIES PASS_REGULAR_EXPRESSION "${expect}")
endfunction()
headlab_cli_case(identity attention_identity.json "\"reading\".*exit=0")
headlab_cli_case(shape_mismatch attention_bad_shape.json "w_q must have d_model = 2 rows to match x \\(2 × 2\\), got 3 × 2.*exit=1")
headlab_cli_case(ragged attention_ragged.json "x row 1 must have 2 numbers.*exit=1")
headlab_cli_case(not_json attention_not_json.txt "not valid JSON.*exit=1")
headlab_cli_case(missing_field attention_missing_wv.json "missing field \"w_v\".*exit=1")
headlab_cli_case(empty attention_empty.json "x is empty.*exit=1")
# Found by the fuzzer: a number beyond double range must be a message, not an abort.
headlab_cli_case(number_overflow attention_overflow_number.txt "not valid JSON.*exit=1")
