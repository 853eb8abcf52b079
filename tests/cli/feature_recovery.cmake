# headlab feature-recovery through the executable: a short run, and each kind of bad argument
# (usage message on stderr, exit 2).
function(headlab_feature_recovery_case name expect)
  add_test(NAME cli.feature_recovery.${name}
           COMMAND sh -c "\"$0\" feature-recovery \"$@\" 2>&1; echo \"exit=$?\"" ${_cli} ${ARGN})
  set_tests_properties(cli.feature_recovery.${name} PROPERTIES PASS_REGULAR_EXPRESSION "${expect}")
endfunction()
# 30 steps on 8 examples and a 16-example held-out set, written to stdout: the fields are there.
headlab_feature_recovery_case(short_run_stdout
  "\"heldout_mse\":.*\"loss_trace\":\\[[^]]*\\].*\"steps_done\":30.*exit=0"
  --seed 3 --steps 30 --batch 8 --eval-size 16 --out -)
headlab_feature_recovery_case(zero_steps "\"loss_trace\":\\[\\].*\"steps_done\":0.*exit=0"
  --seed 0 --steps 0 --eval-size 16 --out -)
headlab_feature_recovery_case(unknown_flag "unknown argument \"--frobnicate\".*usage: headlab feature-recovery.*exit=2"
  --seed 0 --out - --frobnicate 3)
headlab_feature_recovery_case(missing_seed "--seed is required.*usage:.*exit=2" --out -)
headlab_feature_recovery_case(missing_out "--out is required.*usage:.*exit=2" --seed 1)
headlab_feature_recovery_case(missing_value "--steps needs a value.*usage:.*exit=2" --seed 1 --out - --steps)
headlab_feature_recovery_case(negative_steps "steps must lie in \\[0, 10000000\\], got -5.*exit=2"
  --seed 1 --out - --steps -5)
headlab_feature_recovery_case(non_number_steps "--steps must be an integer, got \"12x\".*exit=2"
  --seed 1 --out - --steps 12x)
headlab_feature_recovery_case(negative_seed "--seed must be an integer in \\[0, 9007199254740991\\], got \"-1\".*exit=2"
  --seed -1 --out -)
headlab_feature_recovery_case(zero_batch "batch_size must lie in \\[1, 100000\\], got 0.*exit=2"
  --seed 1 --out - --batch 0)
headlab_feature_recovery_case(nan_lr "--lr must be a finite decimal number, got \"nan\".*exit=2" --seed 1 --out - --lr nan)
headlab_feature_recovery_case(hex_lr "--lr must be a finite decimal number, got \"0x10\".*exit=2" --seed 1 --out - --lr 0x10)
headlab_feature_recovery_case(zero_lr "learning_rate must be finite and > 0.*exit=2" --seed 1 --out - --lr 0)
headlab_feature_recovery_case(negative_request_scale "request_scale must lie in \\[1e-06, 1e\\+06\\], got -1.*exit=2"
  --seed 1 --out - --request-scale -1)
# Weights inside ±1e6, loss 750 against a start of 1.5 (learning_rate 10, exit 0): diverged by the loss, no results.
headlab_feature_recovery_case(loss_diverges "training diverged at step 100: the loss averaged [0-9.e+]+ over the last 16 steps, above 2 × 1.52.*the zero prediction.*exit=1"
  --seed 0 --steps 100 --batch 1 --lr 10 --eval-size 16 --out -)
# A request scale so small that the query R² is 0/0: it was written as "query_r2": [null, null, null], exit 0.
headlab_feature_recovery_case(tiny_request_scale "request_scale must lie in \\[1e-06, 1e\\+06\\], got 1e-160.*exit=2"
  --seed 1 --steps 1 --eval-size 16 --out - --request-scale 1e-160)
headlab_feature_recovery_case(keys_short "--keys needs 12 comma-separated numbers \\(4 keys of 3\\), got \"1,1,0\".*exit=2"
  --seed 1 --out - --keys 1,1,0)
headlab_feature_recovery_case(keys_large "fixed_keys entries must lie in \\[-10, 10\\], got 11.* row 1, column 1.*exit=2"
  --seed 1 --out - --keys 11,1,0,1,-1,0,-1,1,0,-1,-1,0)
headlab_feature_recovery_case(keys_flat "\"fixed_keys\":\\[\\[1.0,1.0,0.0\\],.*\"steps_done\":3.*exit=0"
  --seed 0 --steps 3 --eval-size 4 --out - --keys 1,1,0,1,-1,0,-1,1,0,-1,-1,0)
headlab_feature_recovery_case(tiny_eval "eval_size must lie in \\[2, 1000000\\], got 1.*exit=2"
  --seed 1 --out - --eval-size 1)
headlab_feature_recovery_case(unwritable_out "--out: cannot write \"/nonexistent/dir/r.json\".*exit=1"
  --seed 1 --steps 1 --eval-size 4 --out /nonexistent/dir/r.json)
