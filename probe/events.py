"""What probe tells the rest of the application: an experiment has finished collecting (its
scoring opens). Sent by collection's roll-up and by an editor finishing by hand; scoring (new
scorers) and the notifications listen."""

from django.dispatch import Signal

# sender: the Experiment class; experiment_pk: the experiment now collected.
experiment_collected = Signal()
