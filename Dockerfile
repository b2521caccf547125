# The production image: gunicorn for the web, the same image for the Celery worker.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DATA_DIR=/data
WORKDIR /app
COPY pyproject.toml README.md constraints.txt ./
COPY config config
COPY probe probe
COPY scoring scoring
COPY grading grading
COPY adapters adapters
COPY api api
# The exact versions CI tested (constraints.txt, written by `python3 dev.py lock`).
RUN pip install --no-cache-dir -c constraints.txt .
COPY manage.py ./
COPY templates templates
COPY static static
COPY locale locale
COPY tools tools
RUN python tools/i18n.py compile
# Hashed, gzipped static files and their manifest (pages link the hashed names; WhiteNoise serves
# them precompressed, cached for a year).
RUN SECRET_KEY=build-only python manage.py collectstatic --noinput
RUN useradd --create-home app && mkdir -p /data && chown app /data
USER app
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "60", "--access-logfile", "-"]
