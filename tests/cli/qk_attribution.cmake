# headlab model analyze --qk-attribution L.H: the split's members in the document, layer 0's sources
# named on stderr, and a bad head, layer, position or flag refused by name.
function(headlab_qk_case name expect)
  add_test(NAME cli.qk_attribution.${name}
           COMMAND sh -c "exe=\"$1\"; shift; \"$exe\" model analyze \"$@\" 2>&1; echo \"exit=$?\"" sh $<TARGET_FILE:headlab>
                   --config ${CMAKE_CURRENT_SOURCE_DIR}/data/transformer/two_layer_ln_pos.json
                   --weights ${CMAKE_CURRENT_SOURCE_DIR}/data/transformer/two_layer_ln_pos.safetensors
                   --sequences 1 ${ARGN})
  set_tests_properties(cli.qk_attribution.${name} PROPERTIES PASS_REGULAR_EXPRESSION "${expect}")
endfunction()
headlab_qk_case(document
  "\"qk_attribution\": *{\"layer\": *1, *\"head\": *2, *\"position\": *2, *\"sources\": *\\[\"embed\", *\"pos\", *\"L0H0\", *\"L0H1\", *\"L0H2\", *\"bias\"\\], *\"parts\": *\\[\\[\\[[-0-9].*\"scores\": *\\[[-0-9.e]+, *[-0-9.e]+, *[-0-9.e]+\\]}}.exit=0"
  --prompt "1 2 3 4" --position 2 --qk-attribution 1.2)
headlab_qk_case(layer_zero
  "layer 0 reads no earlier heads; its scores split over embed, pos, bias.*\"sources\": *\\[\"embed\", *\"pos\", *\"bias\"\\].*exit=0"
  --prompt "1 2 3" --qk-attribution 0.1)
headlab_qk_case(bad_layer "qk attribution: layer 2 is outside the model's layers \\[0, 2\\).exit=1"
  --prompt "1 2 3" --qk-attribution 2.0)
headlab_qk_case(bad_head "qk attribution: head 3 is outside layer 1's heads \\[0, 3\\).exit=1"
  --prompt "1 2 3" --qk-attribution 1.3)
headlab_qk_case(bad_position "position = 3 is out of range \\[0, 3\\).exit=1"
  --prompt "1 2 3" --position 3 --qk-attribution 1.0)
headlab_qk_case(not_a_pair "--qk-attribution: \"1\" is not a layer.head pair such as 1.2.*exit=2"
  --prompt "1 2 3" --qk-attribution 1)
headlab_qk_case(two_heads "--qk-attribution takes one layer.head pair such as 1.2, got 2.*exit=2"
  --prompt "1 2 3" --qk-attribution "1.0 1.1")
# The layouts beyond LN / learned positions split too: RMSNorm with rotary positions (its sources
# have no pos: RoPE turns each part instead) and LayerNorm with shortformer positions (pos enters
# q and k only, still a source).
function(headlab_qk_layout_case name model expect)
  add_test(NAME cli.qk_attribution.${name}
           COMMAND sh -c "exe=\"$1\"; shift; \"$exe\" model analyze \"$@\" 2>&1; echo \"exit=$?\"" sh $<TARGET_FILE:headlab>
                   --config ${CMAKE_CURRENT_SOURCE_DIR}/data/archs/${model}.json
                   --weights ${CMAKE_CURRENT_SOURCE_DIR}/data/archs/${model}.safetensors
                   --sequences 1 ${ARGN})
  set_tests_properties(cli.qk_attribution.${name} PROPERTIES PASS_REGULAR_EXPRESSION "${expect}")
endfunction()
headlab_qk_layout_case(rotary_rms rope_neox_rms_nobias
  "\"qk_attribution\": *{\"layer\": *1, *\"head\": *2, *\"position\": *4, *\"sources\": *\\[\"embed\", *\"L0H0\", *\"L0H1\", *\"L0H2\", *\"bias\"\\], *\"parts\": *\\[\\[\\[[-0-9].*exit=0"
  --prompt "1 2 3 1 2" --qk-attribution 1.2)
headlab_qk_layout_case(shortformer shortformer_ln
  "\"qk_attribution\": *{\"layer\": *1, *\"head\": *0, *\"position\": *3, *\"sources\": *\\[\"embed\", *\"pos\", *\"L0H0\", *\"L0H1\", *\"L0H2\", *\"bias\"\\].*exit=0"
  --prompt "1 2 3 1 2" --position 3 --qk-attribution 1.0)
