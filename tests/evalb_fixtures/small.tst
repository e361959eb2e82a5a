(S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .))
(S (NP (NNP John)) (VP (VBZ likes) (NNS dogs)) (. .))
(S (NP (PRP It)) (VP (VBD rained)) (NN .))

(S (DT the) (NP (JJ big) (NN dog) (VBD barked)))
(S (NP (PRP We)) (VP (VBD left) (PRT (RP early))))
