"""A tree paired with the dependency sentence of its words: the joint task's examples and predictions.

The joint task (:mod:`mlparse.tasks.joint`) reads them from a prepared ``.trees`` split and the ``.conllu``
beside it and writes and scores them; the joint parser (:mod:`mlparse.models.joint_parser`) trains on the
examples and predicts the predictions.  Both take them from here, below them.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlparse.trees.dependency import DependencyPrediction, DependencySentence
from mlparse.trees.tree import Tree


@dataclass
class JointExample:
    """A gold tree (TOP-rooted) and the gold dependency sentence of its words."""

    tree: Tree
    dependencies: DependencySentence


@dataclass
class JointPrediction:
    """A predicted tree and the predicted heads and relations of its words."""

    tree: Tree
    dependencies: DependencyPrediction
