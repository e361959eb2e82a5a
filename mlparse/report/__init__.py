"""mlparse.report"""
