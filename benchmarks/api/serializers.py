from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from benchmarks.models import ReferenceRun
from benchmarks.runner.config import Device, EchoStage
from benchmarks.selectors import reference_run_task_state
from benchmarks.services import reference_run_config
from dawnboard.recipes import RECIPES, recipe_named

MAX_STORED_INTEGER = 2**31 - 1  # the largest positive integer every database stores in its integer column


class ReferenceRunRequestSerializer(serializers.Serializer):
    task = serializers.ChoiceField(choices=sorted({recipe.task_slug for recipe in RECIPES}))
    recipe = serializers.CharField(required=False, help_text="The task's first recipe when left out.")
    seed = serializers.IntegerField(min_value=0, max_value=MAX_STORED_INTEGER, default=0)
    max_epochs = serializers.IntegerField(
        min_value=1, max_value=MAX_STORED_INTEGER, required=False, allow_null=True, default=None
    )
    device = serializers.ChoiceField(choices=[device.value for device in Device], default=Device.CPU.value)
    echo_factor = serializers.IntegerField(min_value=1, max_value=64, default=1)
    echo_stage = serializers.ChoiceField(choices=[stage.value for stage in EchoStage], default=EchoStage.EXAMPLE.value)
    submit = serializers.BooleanField(default=True)

    def validate(self, data):
        try:
            data["recipe"] = recipe_named(data["task"], data.get("recipe")).name
        except KeyError:
            raise serializers.ValidationError(
                {
                    "recipe": serializers.ErrorDetail(
                        f"The task {data['task']} has no recipe {data.get('recipe')!r}.", code="unknown_recipe"
                    )
                }
            ) from None
        return data

    def as_options(self) -> dict:
        data = dict(self.validated_data)
        return {"task_slug": data.pop("task"), **data}


class ReferenceRunSerializer(serializers.ModelSerializer):
    task = serializers.CharField(source="task_slug")
    url = serializers.SerializerMethodField()
    command = serializers.SerializerMethodField()
    task_state = serializers.SerializerMethodField(
        help_text="The Celery task's state where a result backend keeps it: PROGRESS carries epoch, step, quality."
    )

    class Meta:
        model = ReferenceRun
        fields = [
            "id",
            "url",
            "task",
            "recipe",
            "seed",
            "max_epochs",
            "device",
            "echo_factor",
            "echo_stage",
            "submit",
            "command",
            "state",
            "progress",
            "task_state",
            "outcome",
            "error",
            "created_at",
            "started_at",
            "finished_at",
        ]

    def get_url(self, run: ReferenceRun) -> str:
        path = reverse("benchmarks-api:reference-run-detail", args=[run.id])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path

    def get_task_state(self, run: ReferenceRun) -> dict | None:
        return reference_run_task_state(run)

    def get_command(self, run: ReferenceRun) -> str:
        return reference_run_config(run).command
